package analysis

import (
	"encoding/json"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// historyLine is the first measured line of the committed history with
// the given schema and scenario, as written.
func historyLine(t *testing.T, schema int, scenario string) []byte {
	t.Helper()
	lines, err := Load("../../bench_history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l.Schema == schema && l.Scenario == scenario && l.Skipped == "" {
			b, err := json.Marshal(l.Raw())
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no schema %d line of %s in the history", schema, scenario)
	return nil
}

// rewritten is line b as this version writes it: schema 4 with dims, of
// another run; with dims nil, as a line that lost its level.
func rewritten(t *testing.T, b []byte, dims results.Dims) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["schema"], m["run_id"] = results.SchemaVersion, "new-run"
	if dims != nil {
		m["dims"] = dims
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompareMatchesOldAndNewLines: a history line older than dims and
// the same cell written with dims are one cell for compare (Decode fills
// the old line's dims); a new line of another level, or one whose level
// is missing, is not.
func TestCompareMatchesOldAndNewLines(t *testing.T) {
	for _, c := range []struct {
		schema   int
		scenario string
		dims     results.Dims
		other    results.Dims
	}{
		{2, "s3.get.4KiB.c8", results.Dims{results.DimSize: 4096, results.DimConcurrency: 8}, results.Dims{results.DimSize: 4096, results.DimConcurrency: 1}},
		{3, "s3.head.c64.open.50pct", results.Dims{results.DimConcurrency: 64, results.DimRate: 1420.5147599452646, results.DimRatePct: 50}, results.Dims{results.DimConcurrency: 64, results.DimRate: 1420.5147599452646}},
		{2, "data.append.500k", results.Dims{results.DimRows: 500_000}, results.Dims{results.DimRows: 100_000}},
		{3, "commit_table.throughput.t32", results.Dims{results.DimThreads: 32}, results.Dims{results.DimThreads: 8}},
	} {
		old := historyLine(t, c.schema, c.scenario)
		ls := parse(t, old, rewritten(t, old, c.dims), rewritten(t, old, c.other), rewritten(t, old, nil))
		if got := CellOf(ls[0], true); got != CellOf(ls[1], true) {
			t.Errorf("%s: the old line's cell %+v is not the new line's %+v", c.scenario, got, CellOf(ls[1], true))
		}
		if CellOf(ls[0], true) == CellOf(ls[2], true) || CellOf(ls[0], true) == CellOf(ls[3], true) {
			t.Errorf("%s: a line of another level (or none) shares the old line's cell", c.scenario)
		}
		cmp, err := Compare(ls[:1], ls[1:2], CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cmp.Rows) == 0 || cmp.Rows[0].Scen != c.scenario {
			t.Errorf("%s: compare paired no cell of the old and the new line: %d rows", c.scenario, len(cmp.Rows))
		}
	}
}
