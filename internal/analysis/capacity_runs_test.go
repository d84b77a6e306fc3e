package analysis

import (
	"bytes"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// The capacity-runs table: every run with the label, oldest first, each
// target's max_rate per run, the ratio per run and its median and range
// over the runs; a run where a side met the objective at no rate shows
// "none" and no ratio, and that run is left out of the median.
func TestCapacityRunsTable(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := parse(t, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	rate := func(l Line) float64 {
		m, ok := l.Measure("max_rate")
		if !ok || m.Value <= 0 {
			t.Fatalf("%s: no max_rate", l.Target)
		}
		return m.Value
	}
	// run makes a copy of the first run under id, started after it, with
	// rest's max_rate scaled by f (0: rest met the objective at no rate).
	run := func(id string, after time.Duration, f float64) []Line {
		var out []Line
		for _, l := range first {
			l.RunID, l.TS, l.Label = id, l.TS.Add(after), "cap"
			l.Measures = maps.Clone(l.Measures)
			if l.Target == "rest" {
				l.Measures["max_rate"] = results.Measure{Value: rate(l) * f, Unit: "ops/s"}
			}
			out = append(out, l)
		}
		return out
	}
	var emb, rest float64
	for _, l := range first {
		switch l.Target {
		case "embedded":
			emb = rate(l)
		case "rest":
			rest = rate(l)
		}
	}
	// Written newest first: the table orders runs by their start.
	var history []Line
	history = append(history, run("run-c", 2*time.Hour, 0)...)
	history = append(history, run("run-b", time.Hour, 2)...)
	history = append(history, run("run-a", 0, 1)...)
	history = append(history, run("other", 3*time.Hour, 1)...)
	for i := range history[len(history)-len(first):] {
		history[len(history)-len(first)+i].Label = "another"
	}
	doc := "<!-- katbench:table cap layout=capacity-runs ratios=embedded/rest -->\n<!-- /katbench:table -->\n"
	folded, _, err := FoldReadme([]byte(doc), Sources{History: history, HistoryName: "h.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(folded)
	r1, r2 := emb/rest, emb/(2*rest)
	lo, hi := min(r1, r2), max(r1, r2)
	for _, want := range []string{
		"from the 3 runs labelled `cap` in `h.jsonl`",
		"| run | started (UTC) | embedded | rest | embedded / rest |",
		"| `run-a` | " + first[0].TS.UTC().Format("2006-01-02 15:04") + " | " + fmtRate(emb) + " | " + fmtRate(rest) + " | " + results.FormatRatio(r1) + " |",
		"| " + fmtRate(2*rest) + " | " + results.FormatRatio(r2) + " |",
		"| `run-c` | ",
		" | none | — |",
		"| median (min–max) | | | | " + results.FormatRatio(median([]float64{r1, r2})) + " (" + trimX(results.FormatRatio(lo)) + "–" + trimX(results.FormatRatio(hi)) + ") |",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "`run-a`") > strings.Index(out, "`run-b`") || strings.Index(out, "`run-b`") > strings.Index(out, "`run-c`") {
		t.Fatalf("runs not in the order they started:\n%s", out)
	}
	if strings.Contains(out, "`other`") {
		t.Fatalf("a run with another label is in the table:\n%s", out)
	}
	// A ratio naming a target no run has is bad input, not an empty column.
	bad := "<!-- katbench:table cap layout=capacity-runs ratios=nosuch/rest -->\n<!-- /katbench:table -->\n"
	if _, _, err := FoldReadme([]byte(bad), Sources{History: history}); err == nil {
		t.Fatal("a ratio of an unknown target made a table")
	}
}
