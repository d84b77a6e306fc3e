package main

import (
	"strings"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

// withFloors adds, after the targets, the file-system floors that run
// beside them (scenarios.Floors): their lines are the floor of the
// catalog's in the same run.
//
// A floor runs only the write scenarios it has (competitors.FloorRuns)
// and gives every other scenario of the run a skipped line, so it is
// added only when the run asked for write scenarios alone (--scenario
// selecting only create_table.* and commit_table.* names, one of them the
// floor's): then each of its lines is a write scenario, measured or
// skipped saying why the floor cannot run it. A run of the default set
// (no --scenario, e.g. `katbench embedded --quick`) or one that mixes
// reads with writes has no floor, rather than a skipped floor line for
// every scenario the floor has nothing to compare with.
func withFloors(specs []targetSpec, factories []competitors.Factory, o scenarios.Options) ([]targetSpec, []competitors.Factory) {
	if !onlyWrites(o) {
		return specs, factories
	}
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

// onlyWrites reports whether o names its scenarios (--scenario) and every
// one it selects is a write scenario.
func onlyWrites(o scenarios.Options) bool {
	if len(o.Select) == 0 {
		return false
	}
	for _, sc := range scenarios.Plan(o.Threads) {
		if o.Select.Selects(sc.Name) && !isWrite(sc.Name) {
			return false
		}
	}
	return true
}

// isWrite reports whether scenario writes tables (creates or commits).
func isWrite(scenario string) bool {
	return strings.HasPrefix(scenario, "create_table.") || strings.HasPrefix(scenario, "commit_table.")
}
