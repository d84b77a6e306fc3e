package scenarios_test

import (
	"context"
	"testing"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// TestControlLineSaysSo: the control scenario's line carries
// Record.Control, and no other line does, so no reader decides it from
// the scenario's name.
func TestControlLineSaysSo(t *testing.T) {
	emb, err := competitors.Lookup("embedded")
	if err != nil {
		t.Fatal(err)
	}
	o := tinyOptions()
	o.Select, err = scenarios.ParseSelector("control.latency,load_table.latency", o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{{Factory: emb, Config: competitors.Config{Dir: t.TempDir()}}}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, rec := range coll.Records {
		if want := rec.Scenario == scenarios.ControlName; rec.Control != want {
			t.Errorf("%s: control = %v, want %v", rec.Scenario, rec.Control, want)
		}
		seen++
	}
	if seen < 2 {
		t.Fatalf("%d lines, want the control's and load_table's", seen)
	}
}
