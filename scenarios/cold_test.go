package scenarios_test

import (
	"context"
	"testing"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// TestColdLoadReopensBetweenPasses: load_table.cold.latency times only
// first loads after a reopen — with 10 tables and 25 loads that takes three
// reopens — and the warm scenario says it is warm.
func TestColdLoadReopensBetweenPasses(t *testing.T) {
	o := tinyOptions()
	o.LatencyOps = 25
	o.Select, _ = scenarios.ParseSelector("load_table.*latency", o.Threads)
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded"), target(t, "sql")}); err != nil {
		t.Fatal(err)
	}
	got := byKey(coll.Records)
	for _, tg := range []string{"embedded", "sql"} {
		cold, warm := got[tg+" load_table.cold.latency"], got[tg+" load_table.latency"]
		if cold.Skipped != "" || cold.Ops != 25 || cold.Errors != 0 || cold.Params["cache"] != "cold" || cold.Params["reopens"] != 3 {
			t.Errorf("%s cold: skipped %q ops %d errors %d params %v; want 25 loads over 3 reopens", tg, cold.Skipped, cold.Ops, cold.Errors, cold.Params)
		}
		if warm.Params["cache"] != "warm" {
			t.Errorf("%s warm load_table: params.cache = %v", tg, warm.Params["cache"])
		}
	}
}
