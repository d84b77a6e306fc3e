package scenarios

import (
	"strings"
	"testing"

	"github.com/nordisk/katbench/bench"
)

// TestQuickPlanLeavesOutTheSweep: a quick run measures a few levels and no
// durability throughput sweep; --full, a full run, or a selector naming
// the sweep brings it back.
func TestQuickPlanLeavesOutTheSweep(t *testing.T) {
	names := func(o Options) map[string]bool {
		m := map[string]bool{}
		for _, sc := range o.planned() {
			m[sc.Name] = true
		}
		return m
	}
	quick := Defaults(true)
	got := names(quick)
	for n := range got {
		if strings.Contains(n, ".flush.") {
			t.Errorf("quick plan has flush-mode sweep scenario %s", n)
		}
		if strings.HasPrefix(n, "create_table.durability.") && strings.Contains(n, ".t") {
			t.Errorf("quick plan has sweep scenario %s", n)
		}
		if strings.HasSuffix(n, ".t32") {
			t.Errorf("quick plan has level %s (want %v)", n, QuickThreads)
		}
	}
	for _, want := range []string{"load_table.throughput.t1", "load_table.throughput.t4", "create_table.durability.eventual", "commit_table.contended.t4"} {
		if !got[want] {
			t.Errorf("quick plan lacks %s", want)
		}
	}
	full := quick
	full.Full, full.Threads = true, DefaultThreads
	if g := names(full); !g["commit_table.durability.none.t32"] || !g["load_table.throughput.t32"] || !g["create_table.flush.uring.t8"] {
		t.Error("--quick --full lacks the sweep or the top level")
	}
	if g := names(Defaults(false)); !g["create_table.durability.immediate.t8"] {
		t.Error("a full run lacks the sweep")
	}
	sel := quick
	var err error
	if sel.Select, err = ParseSelector("create_table.durability.*", sel.Threads); err != nil {
		t.Fatal(err)
	}
	if g := names(sel); !g["create_table.durability.none.t8"] {
		t.Error("a quick run whose --scenario names the sweep does not run it")
	}
	// Two throughput levels on one target, one skipped elsewhere: 2 × (200ms
	// warm-up + 500ms) of timed phases; a skipped scenario costs nothing.
	plan := []Scenario{
		{Scenario: bench.Scenario{Name: "a.t1", Kind: bench.KindThroughput}},
		{Scenario: bench.Scenario{Name: "a.t4", Kind: bench.KindThroughput}},
		{Scenario: bench.Scenario{Name: "b", Kind: bench.KindThroughput}},
	}
	if est := Estimate(plan, []int{1, 1, 0}, quick); !strings.HasPrefix(est, "at least 1.4s of timed phases, plus 0 count-based") {
		t.Errorf("estimate %q", est)
	}
}
