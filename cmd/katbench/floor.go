package main

import (
	"slices"
	"strings"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

// withFloors adds, after the targets, the file-system floor of every target
// that has one (competitors.FloorOf) when the run selects a scenario the
// floor runs in immediate durability, unless the floor is a target
// already: its lines are the floor of the catalog's in the same run. A mix
// or a capacity search (o.Workload) runs no scenario of the floor's.
func withFloors(specs []targetSpec, factories []competitors.Factory, o scenarios.Options) ([]targetSpec, []competitors.Factory) {
	if o.Workload != nil {
		return specs, factories
	}
	if d := strings.ToLower(strings.TrimSpace(o.Durability)); d != "" && d != "immediate" {
		return specs, factories
	}
	selected := false
	for _, sc := range scenarios.Plan(o.Threads) {
		if o.Select.Selects(sc.Name) && floorRuns(sc.Name) {
			selected = true
			break
		}
	}
	if !selected {
		return specs, factories
	}
	have := map[string]bool{}
	for _, s := range specs {
		have[s.name] = true
	}
	for _, s := range slices.Clone(specs) {
		f := competitors.FloorOf(s.name)
		if f == "" || have[f] {
			continue
		}
		fac, err := competitors.Lookup(f)
		if err != nil {
			continue // not registered in this build
		}
		have[f] = true
		specs = append(specs, targetSpec{name: f})
		factories = append(factories, fac)
	}
	return specs, factories
}

// floorRuns reports whether the floor runs scenario name.
func floorRuns(name string) bool {
	for _, s := range competitors.FloorScenarios {
		if name == s || strings.HasPrefix(name, s+".") {
			return true
		}
	}
	return false
}
