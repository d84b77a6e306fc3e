package analysis

import (
	"strings"
	"testing"
)

func TestWritesSummary(t *testing.T) {
	quiet := vmRun("5e1e700000000001")
	noisy := vmRun("5e1e700000000002")
	ls := [][]byte{
		writesLine(t, quiet, "writes-quiet", "embedded", "create_table.flush.uring.t1", 1, []float64{100, 110, 90}, 1000, false),
		writesLine(t, quiet, "writes-quiet", "fs-floor", "create_table.flush.uring.t1", 1, []float64{200, 200, 200}, 500, false),
		writesLine(t, quiet, "writes-quiet", "embedded", "create_table.flush.uring.t8", 8, []float64{400, 330, 360}, 1000, false),
		writesLine(t, quiet, "writes-quiet", "fs-floor", "create_table.flush.uring.t8", 8, []float64{500, 500, 500}, 500, false),
		writesLine(t, quiet, "writes-quiet", "embedded", "commit_table.flush.uring.t1", 1, []float64{300, 300, 300}, 1000, false),
		writesLine(t, quiet, "writes-quiet", "embedded", "load_table.latency", 1, []float64{1, 1, 1}, 1, false),
		// The neighbour run measured t1 only, at a quarter of the floor.
		writesLine(t, noisy, "writes-neighbour", "embedded", "create_table.flush.uring.t1", 1, []float64{50, 50, 60}, 3000, true),
		writesLine(t, noisy, "writes-neighbour", "fs-floor", "create_table.flush.uring.t1", 1, []float64{200, 200, 200}, 1500, true),
	}
	text := "<!-- katbench:table writes-summary label=writes-quiet layout=writes-summary neighbour=writes-neighbour -->\n<!-- /katbench:table -->\n"
	got := foldWants(t, text, parse(t, ls...),
		"| embedded ÷ fs-floor ops/s | t1 | t8 | t1 beside the neighbour | t8 beside the neighbour |",
		// quiet t1: 0.5 [0.45–0.55]; t8: 0.72 [0.66–0.8]; neighbour t1: 0.25 [0.25–0.3]; t8 not measured.
		"| create, uring | 0.5× [0.45–0.55] | 0.72× [0.66–0.8] | 0.25× [0.25–0.3] | — |",
		// A commit the floor did not measure has no ratio rather than a made-up one.
		"| commit, uring | — | — | — | — |",
		"from run `5e1e700000000001` (label `writes-quiet`)",
		"_Beside the neighbour: run `5e1e700000000002` (label `writes-neighbour`)",
	)
	if strings.Contains(got, "load_table") {
		t.Errorf("a scenario outside the flush sweep is in the summary:\n%s", got)
	}

	// An unknown neighbour label is an error, not a table without it.
	bad := "<!-- katbench:table writes-summary label=writes-quiet layout=writes-summary neighbour=nope -->\n<!-- /katbench:table -->\n"
	if _, _, err := FoldReadme([]byte(bad), Sources{History: parse(t, ls...), HistoryName: "h.jsonl"}); err == nil || !strings.Contains(err.Error(), "neighbour=nope") {
		t.Fatalf("neighbour=nope: err %v, want one naming the label", err)
	}
}
