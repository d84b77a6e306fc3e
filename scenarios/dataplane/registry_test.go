package dataplane

import (
	"slices"
	"testing"

	"github.com/nordisk/katbench/bench"
)

// TestBenchScenariosListed: every data-plane scenario, the raw baseline
// and every S3 operation are registered scenarios of their bench, with
// the dimensions their names carry and what they need, so `katbench list`
// shows them beside the catalog scenarios.
func TestBenchScenariosListed(t *testing.T) {
	var data []string
	for _, s := range bench.BenchScenarios(bench.BenchData) {
		data = append(data, s.Name)
		if s.Doc == "" || len(s.Needs) == 0 {
			t.Errorf("%s: doc %q needs %v", s.Name, s.Doc, s.Needs)
		}
	}
	if want := []string{"data.append", ScanName, CommitLatency, OverwriteName, RawName}; !slices.Equal(data, want) {
		t.Errorf("data scenarios %v, want %v", data, want)
	}
	var s3 []string
	for _, s := range bench.BenchScenarios(bench.BenchTransport) {
		s3 = append(s3, s.Name)
		if !slices.ContainsFunc(s.Needs, func(r bench.Requirement) bool { return r.Why == bench.NeedS3Store.Why }) {
			t.Errorf("%s does not need an S3 store: %v", s.Name, s.Needs)
		}
	}
	for _, op := range []string{"s3.head", "s3.get", "s3.put", "s3.range", "s3.list"} {
		if !slices.Contains(s3, op) {
			t.Errorf("%s not registered (have %v)", op, s3)
		}
	}
	raw, _ := lookupBench(RawName)
	if !slices.ContainsFunc(raw.Needs, func(r bench.Requirement) bool { return r.Why == "scenario data.append" }) {
		t.Errorf("%s needs %v, want the appends", RawName, raw.Needs)
	}
	if app, _ := lookupBench("data.append"); !slices.Equal(app.Dims, []bench.Dimension{bench.DimRows}) {
		t.Errorf("data.append dims %v, want rows", app.Dims)
	}
}

// TestRawSelectionRunsTheAppends: selecting the raw baseline alone runs
// the appends it is sized from, without their line; with no baseline
// configured the selection runs nothing.
func TestRawSelectionRunsTheAppends(t *testing.T) {
	only := func(name string) bool { return name == RawName }
	p, err := plan(Config{Rows: 1000, CommitOps: 1, Select: only, Baseline: &Baseline{}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 1 || p[0].key != "append" || p[0].recorded {
		t.Fatalf("plan %v, want the appends, unrecorded", p)
	}
	if p, _ = plan(Config{Rows: 1000, CommitOps: 1, Select: only}, 1); len(p) != 0 {
		t.Fatalf("without a baseline the plan is %v, want nothing", p)
	}
	if !slices.Contains(SelectNames(1000), RawName) || slices.Contains(Names(1000), RawName) {
		t.Errorf("SelectNames %v, Names %v", SelectNames(1000), Names(1000))
	}
}

func lookupBench(name string) (bench.Scenario, bool) {
	for _, s := range bench.BenchScenarios(bench.BenchData) {
		if s.Name == name {
			return s, true
		}
	}
	return bench.Scenario{}, false
}
