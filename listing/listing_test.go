package listing

import (
	"strings"
	"testing"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/workload"
)

// TestListNamesEveryRegisteredThing: every competitor, catalog scenario
// and mix is on a line of `katbench list`, with every mix operation.
func TestListNamesEveryRegisteredThing(t *testing.T) {
	var b strings.Builder
	if err := WriteList(&b); err != nil {
		t.Fatal(err)
	}
	starts := map[string]bool{}
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			starts[f[0]] = true
		}
	}
	var want []string
	for _, f := range competitors.All() {
		want = append(want, f.Name)
	}
	for _, s := range scenarios.Plan(scenarios.DefaultThreads) {
		want = append(want, s.Name)
	}
	for _, m := range workload.Mixes() {
		want = append(want, m.Name)
	}
	if len(want) < 3 {
		t.Fatalf("registries hold only %v", want)
	}
	for _, name := range want {
		if !starts[name] {
			t.Errorf("%s is on no line of the list", name)
		}
	}
	if ops := strings.Join(workload.MixOps(), ", "); !strings.Contains(b.String(), "can weigh: "+ops+")") {
		t.Errorf("the list does not name the mix operations %s", ops)
	}
}

// TestReadmeSections: the generated sections are the ones the docs'
// markers name, each a markdown table with a row per competitor or
// scenario stem.
func TestReadmeSections(t *testing.T) {
	got := ReadmeSections()
	for _, name := range []string{"competitors", "scenarios", "scenario-kinds"} {
		if !strings.HasPrefix(got[name], "| ") {
			t.Errorf("section %s is not a markdown table: %q", name, got[name])
		}
	}
	for _, f := range competitors.All() {
		if !strings.Contains(got["competitors"], "| `"+f.Name+"` |") {
			t.Errorf("competitor %s has no row", f.Name)
		}
	}
	// The README's line: every name once, in the registry's order, on one line.
	var names []string
	for _, f := range competitors.All() {
		names = append(names, "`"+f.Name+"`")
	}
	if want := strings.Join(names, " · ") + "\n"; got["competitor-names"] != want {
		t.Errorf("competitor-names = %q, want %q", got["competitor-names"], want)
	}
	if !strings.Contains(got["scenarios"], "| `"+scenarios.ControlName+"` |") {
		t.Errorf("no row for the control scenario %s", scenarios.ControlName)
	}
}
