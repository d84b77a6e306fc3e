package main

import (
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

// withFloors adds, after the targets, the file-system floors that run
// beside them (scenarios.Floors): their lines are the floor of the
// catalog's in the same run.
func withFloors(specs []targetSpec, factories []competitors.Factory, o scenarios.Options) ([]targetSpec, []competitors.Factory) {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	for _, name := range scenarios.Floors(names, o) {
		fac, _ := competitors.Lookup(name) // Floors names registered ones only
		specs, factories = append(specs, targetSpec{name: name}), append(factories, fac)
	}
	return specs, factories
}
