package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// depthLine is a measured line of level n with p50 p (µs).
func depthLine(target, scenario string, n, p float64, mode string) Line {
	l := Line{Record: results.Record{RunID: "r1", Target: target, Scenario: scenario, Ops: 10, Metric: results.P50,
		Params:   map[string]any{"snapshots": n, "history_built": "register"},
		Measures: map[string]results.Measure{"history_snapshots": {Value: n, Unit: "count"}, "metadata_bytes": {Value: 2048 * (n + 1), Unit: "bytes"}, "history_build_s": {Value: 1.5, Unit: "s"}}}, P50US: &p}
	if mode != "" {
		l.Params["snapshots_mode"] = mode
	}
	return l
}

func TestHistoryDepthTableAndChart(t *testing.T) {
	lines := []Line{
		depthLine("rest", "load_table.latency", 0, 100, ""),
		depthLine("rest", "load_table.latency", 100, 200, ""),
		depthLine("rest", "load_table.latency", 1000, 2000, ""),
		depthLine("rest", "load_table.direct.latency", 0, 50, "refs"),
		depthLine("rest", "load_table.direct.latency", 1000, 55, "refs"),
		depthLine("nessie", "load_table.latency", 0, 900, ""),
		noted(depthLine("nessie", "load_table.latency", 1000, 910, ""), "the catalog serves 1 of the 1000 snapshots committed"),
		// Without a level: not part of any series.
		{Record: results.Record{RunID: "r1", Target: "rest", Scenario: "load_table.latency", Ops: 10}, P50US: ptr(90.0)},
	}
	order, by := depthSeries(lines)
	if len(order) != 3 || len(by[order[0]]) != 3 || len(by[order[1]]) != 2 {
		t.Fatalf("series %v: want load_table.latency with 3 levels, the refs series with 2 and nessie's", order)
	}
	s, ok := depthSlope(by[order[0]])
	if !ok || math.Abs(s-1) > 1e-9 {
		t.Errorf("slope %v (%v), want 1 (200 µs at 100 snapshots, 2,000 at 1,000)", s, ok)
	}
	if _, ok := depthSlope(by[order[1]]); ok {
		t.Errorf("a slope from one level of one snapshot or more, want none")
	}
	tbl, err := historyTable(lines)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 0 snapshots | 100 snapshots | 1,000 snapshots |",
		"| rest | `load_table.latency` (µs p50) | — | 100.0 | 200.0 | 2,000 | 20.00× | 10.00× (slope 1.00) | 2,002 KiB | register | 1.500 s |",
		"| rest | `load_table.direct.latency` (µs p50) | refs | 50.00 | — | 55.00 | 1.100× | — |",
		// A level the catalog did not keep says so on its row.
		"| register — the catalog serves 1 of the 1000 snapshots committed | 1.500 s |",
	} {
		if !strings.Contains(tbl, want) {
			t.Errorf("table lacks %q:\n%s", want, tbl)
		}
	}
	charts := historyCharts(lines, false)
	if len(charts) != 2 || !strings.Contains(string(charts[0].Chart), "rest · ×10.00/10×") || !strings.Contains(string(charts[1].Chart), "snapshots=refs") {
		t.Errorf("charts: %d, want one per scenario naming the fitted factor and the mode", len(charts))
	}
	if _, err := historyTable(lines[len(lines)-1:]); err == nil {
		t.Error("a run without history levels made a table")
	}
}

// noted is l with a history_note.
func noted(l Line, note string) Line {
	l.Params["history_note"] = note
	return l
}

// TestHistoryNarrowed: targets= and scenarios= keep only their rows, and a
// block that keeps nothing is an error, not an empty table.
func TestHistoryNarrowed(t *testing.T) {
	lines := []Line{
		depthLine("rest", "load_table.latency", 0, 100, ""),
		depthLine("rest", "load_table.latency", 1000, 2000, ""),
		depthLine("rest", "load_table.direct.latency", 0, 50, "refs"),
		depthLine("rest", "load_table.direct.latency", 1000, 55, "refs"),
		depthLine("nessie", "load_table.direct.latency", 0, 900, "refs"),
		depthLine("nessie", "load_table.direct.latency", 1000, 910, "refs"),
	}
	b := Block{Attrs: map[string]string{"targets": "rest", "scenarios": "load_table.direct*"}}
	tbl, err := historyTable(narrow(b, lines))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tbl, "| rest | `load_table.direct.latency` (µs p50) | refs | 50.00 | 55.00 |") {
		t.Errorf("the kept row is missing:\n%s", tbl)
	}
	if strings.Contains(tbl, "nessie") || strings.Contains(tbl, "`load_table.latency`") {
		t.Errorf("a row outside targets=rest scenarios=load_table.direct* is in the table:\n%s", tbl)
	}
	if len(narrow(Block{Attrs: map[string]string{}}, lines)) != len(lines) {
		t.Error("a block without targets= or scenarios= dropped lines")
	}
	if _, err := historyTable(narrow(Block{Attrs: map[string]string{"targets": "polaris"}}, lines)); err == nil {
		t.Error("targets=polaris kept nothing and still made a table")
	}
}
