package dataplane

import (
	"context"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// TestOverwrite: data.overwrite runs only when selected, replaces the
// table's content every round, and its line says so: one verified
// overwrite per round, no errors, rows/s measured; the default scenarios
// stay out when only it is selected.
func TestOverwrite(t *testing.T) {
	cat := openEmbedded(t)
	cfg := smallConfig()
	cfg.Rounds = 3
	cfg.Select = func(name string) bool { return name == OverwriteName }
	var coll results.Collector
	err := Run(context.Background(), cfg, []Lane{{Target: "embedded", Transport: "http", Requested: "http", Catalog: cat}}, &coll)
	if err != nil {
		t.Fatal(err)
	}
	recs := coll.Snapshot()
	if len(recs) != 1 || recs[0].Scenario != OverwriteName {
		t.Fatalf("lines %+v, want one %s line", recs, OverwriteName)
	}
	r := recs[0]
	if r.Ops != 3 || r.Errors != 0 || r.FirstError != "" {
		t.Errorf("ops %d errors %d (%s), want 3 overwrites and no error", r.Ops, r.Errors, r.FirstError)
	}
	if v, ok := r.MeasureValue("rows_s"); !ok || v <= 0 {
		t.Errorf("rows_s %v (%v), want a positive rate", v, ok)
	}
	if r.Params["overwrite_rows"] != int64(cfg.CommitRows)*10 {
		t.Errorf("overwrite_rows %v", r.Params["overwrite_rows"])
	}
}

// TestOverwriteNotByDefault: a run without a selection leaves the opt-in
// scenario out, and Names lists it after the default ones.
func TestOverwriteNotByDefault(t *testing.T) {
	names := Names(1000)
	if len(names) != 4 || names[3] != OverwriteName {
		t.Fatalf("Names = %v, want the three default scenarios then %s", names, OverwriteName)
	}
	p, err := plan(Config{Rows: 1000, CommitOps: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p {
		if s.name == OverwriteName {
			t.Fatalf("a run without a selection plans %s", OverwriteName)
		}
	}
}
