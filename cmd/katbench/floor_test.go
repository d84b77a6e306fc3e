package main

import (
	"slices"
	"testing"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

// TestFloorOnlyBesideWriteSelections: the floor joins the embedded
// catalog when --scenario selects write scenarios only (one of them the
// floor's), and not for the default set or a selection that mixes in
// reads, where most of its lines would be skipped ones.
func TestFloorOnlyBesideWriteSelections(t *testing.T) {
	threads := []int{1, 8, 32}
	for _, tc := range []struct {
		globs string
		floor bool
	}{
		{"", false},
		{"create_table.throughput.*", true},
		{"create_table.throughput.*,commit_table.throughput.*,create_table.flush.*,commit_table.flush.*", true},
		{"create_table.*", true},
		{"commit_table.contended.*", false},
		{"load_table.*,create_table.throughput.*", false},
	} {
		sel, err := scenarios.ParseSelector(tc.globs, threads)
		if err != nil {
			t.Fatal(err)
		}
		fac, err := competitors.Lookup("embedded")
		if err != nil {
			t.Fatal(err)
		}
		specs, facs := withFloors([]targetSpec{{name: "embedded"}}, []competitors.Factory{fac},
			scenarios.Options{Select: sel, Threads: threads})
		var names []string
		for _, s := range specs {
			names = append(names, s.name)
		}
		if len(facs) != len(specs) {
			t.Fatalf("%q: %d factories for %d targets", tc.globs, len(facs), len(specs))
		}
		if got := slices.Contains(names, competitors.FloorName); got != tc.floor {
			t.Errorf("--scenario %q: targets %q, floor wanted %v", tc.globs, names, tc.floor)
		}
	}
}
