package analysis

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// The capacity table of testdata/capacity.jsonl (see
// TestReportDrawsCapacityCurves): a row per target with its max_rate, the
// objectives at it and the step that broke above it, and the ratio of the
// two max_rates.
func TestCapacityTable(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := parse(t, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	max := map[string]float64{}
	for _, l := range lines {
		m, ok := l.Measure("max_rate")
		if !ok || m.Value <= 0 {
			t.Fatalf("%s: no max_rate", l.Target)
		}
		max[l.Target] = m.Value
	}
	doc := "<!-- katbench:table cap run=" + lines[0].RunID + " layout=capacity ratios=embedded/rest,rest/nosuch -->\n<!-- /katbench:table -->\n"
	folded, _, err := FoldReadme([]byte(doc), Sources{History: lines, HistoryName: "h.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(folded)
	for _, want := range []string{
		"| embedded | none durability | " + fmtRate(max["embedded"]) + " | commit_table:p99 ",
		"| rest | none durability | " + fmtRate(max["rest"]) + " | ",
		"| embedded / rest | " + results.FormatRatio(max["embedded"]/max["rest"]) + " (one run: no spread) |",
		"| rest / nosuch | — (a side has no max_rate) |",
		"Objective `p99<=50ms,commit_table:p99<=200ms,errors<=0`; steps of `200ms and at least 0 operations`",
		// rest kept 383 ops/s but not 400 (327 achieved): its highest step kept.
		" | 383 | 6 (1) |",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n| "); n != 1+2+1+2 {
		t.Fatalf("%d table rows, want a header and 2 targets, and a header and 2 ratios:\n%s", n, out)
	}
	// A run without capacity lines has no capacity table.
	other := append([]Line(nil), lines...)
	for i := range other {
		other[i].Kind = "mix"
	}
	if _, _, err := FoldReadme([]byte(doc), Sources{History: other}); err == nil {
		t.Fatal("a run without capacity lines made a capacity table")
	}
}
