package scenarios_test

import (
	"context"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

func TestOpenLoopLines(t *testing.T) {
	o := tinyOptions()
	sel, err := scenarios.ParseSelector("open.*", o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	o.Rate, o.Duration = 2000, 200*time.Millisecond
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded")}); err != nil {
		t.Fatal(err)
	}
	if len(coll.Records) != 3 {
		t.Fatalf("%d lines, want open.control, open.load_table, open.table_exists", len(coll.Records))
	}
	for _, rec := range coll.Records {
		p := rec.Params
		if rec.Loop != results.Open || rec.Kind != "open" || rec.Skipped != "" {
			t.Fatalf("%s: loop %q kind %q skipped %q", rec.Scenario, rec.Loop, rec.Kind, rec.Skipped)
		}
		if rec.Ops+rec.Errors != 400 {
			t.Fatalf("%s: %d ops + %d errors, want the 400 scheduled in 200 ms at 2000/s", rec.Scenario, rec.Ops, rec.Errors)
		}
		if p["rate"] != 2000.0 || p["open_workers"] != 4 {
			t.Fatalf("%s: params %v", rec.Scenario, p)
		}
		kept, ok := p["rate_kept"].(bool)
		achieved, ok2 := rec.MeasureValue("achieved_rate")
		if !ok || !ok2 || achieved <= 0 || kept != (achieved >= 0.95*2000) || rec.Measures["achieved_rate"].Unit != results.UnitOpsPerSec {
			t.Fatalf("%s: achieved %v kept %v", rec.Scenario, rec.Measures["achieved_rate"], p["rate_kept"])
		}
		if _, noted := p["rate_note"]; noted == kept {
			t.Fatalf("%s: rate_note present = %v with rate_kept = %v", rec.Scenario, noted, kept)
		}
		if _, ok := p["sched_p99_us"].(float64); !ok {
			t.Fatalf("%s: no scheduling error", rec.Scenario)
		}
	}

	// Without a rate the open-loop scenarios do not run at all.
	o.Rate = 0
	coll = results.Collector{}
	r = &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded")}); err != nil {
		t.Fatal(err)
	}
	if len(coll.Records) != 0 {
		t.Fatalf("%d open-loop lines without --rate", len(coll.Records))
	}
}
