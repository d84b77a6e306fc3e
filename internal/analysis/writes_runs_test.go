package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// The writes-runs table: every run with the label, oldest first, each
// run's catalog ÷ floor ops/s (the median of its rounds' ratios) and p99
// ratio, and the median and range of each over the runs; a run where the
// floor did not measure the cell shows "—" and is left out of the median,
// and another label's run and another scenario are not shown.
func TestWritesRunsTable(t *testing.T) {
	a := vmRun("run-a")
	b := vmRun("run-b")
	c := vmRun("run-c")
	o := vmRun("run-o")
	const s = "create_table.throughput.t32"
	// Written newest first: the table orders runs by their start.
	h := parse(t,
		writesLine(t, c, "t32", "embedded-log", s, 32, []float64{70, 70}, 1000, false),
		writesLine(t, b, "t32", "embedded-log", s, 32, []float64{95, 95}, 1000, false),
		writesLine(t, b, "t32", "fs-floor", s, 32, []float64{100, 100}, 1000, false),
		writesLine(t, a, "t32", "embedded-log", s, 32, []float64{90, 100, 80}, 2000, false),
		writesLine(t, a, "t32", "fs-floor", s, 32, []float64{100, 100, 100}, 1000, false),
		writesLine(t, a, "t32", "embedded-log", "create_table.throughput.t8", 8, []float64{10, 10}, 1000, false),
		writesLine(t, a, "t32", "fs-floor", "create_table.throughput.t8", 8, []float64{50, 50}, 1000, false),
		writesLine(t, o, "other", "embedded-log", s, 32, []float64{10, 10}, 1000, false),
		writesLine(t, o, "other", "fs-floor", s, 32, []float64{100, 100}, 1000, false),
	)
	t0 := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	for i := range h {
		h[i].TS = t0.Add(map[string]time.Duration{"run-a": 0, "run-b": time.Hour, "run-c": 2 * time.Hour, "run-o": 3 * time.Hour}[h[i].RunID])
	}
	doc := "<!-- katbench:table t32-runs label=t32 layout=writes-runs catalog=embedded-log -->\n<!-- /katbench:table -->\n"
	out := foldWants(t, doc, h,
		"from the 3 runs labelled `t32` in `h.jsonl`",
		"; 2026-12-05 03:00 to 05:00 UTC;",
		"| run | started (UTC) | commit | "+s+" ops/s | "+s+" p99 |",
		"| `run-a` | 2026-12-05 03:00 | ",
		" | "+results.FormatRatio(0.9)+" | "+results.FormatRatio(2)+" |\n| `run-b` | 2026-12-05 04:00 | ",
		" | "+results.FormatRatio(0.95)+" | "+results.FormatRatio(1)+" |\n| `run-c` | 2026-12-05 05:00 | ",
		" | — | — |\n| median (min–max) | | | "+results.FormatRatio(0.925)+" ("+trimX(results.FormatRatio(0.9))+"–"+trimX(results.FormatRatio(0.95))+") | "+
			results.FormatRatio(1.5)+" (1–2) |",
	)
	for _, not := range []string{"run-o", "t8"} {
		if strings.Contains(out, not) {
			t.Errorf("%q shown in\n%s", not, out)
		}
	}

	// No line of the scenario: an error, the document unchanged.
	doc = "<!-- katbench:table t32-runs label=t32 layout=writes-runs catalog=embedded-log scenarios=commit_table.* -->\n<!-- /katbench:table -->\n"
	if _, _, err := FoldReadme([]byte(doc), Sources{History: h, HistoryName: "h.jsonl"}); err == nil {
		t.Error("a table of no lines rendered")
	}
}
