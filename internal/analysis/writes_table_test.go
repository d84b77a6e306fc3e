package analysis

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// foldWants folds doc over the history h and fails the test unless the
// result holds every want; it returns the result.
func foldWants(t *testing.T, doc string, h []Line, wants ...string) string {
	t.Helper()
	out, _, err := FoldReadme([]byte(doc), Sources{History: h, HistoryName: "h.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	return got
}

// vmRun is a run on a 2-core host named vm, the host of every test line
// of the writes tables.
func vmRun(id string) *results.Run {
	return &results.Run{ID: id, Host: results.Host{Hostname: "vm", Cores: 2}}
}

// writesLine is one line of a flush-sweep run: ops/s per round and a p99.
func writesLine(t *testing.T, run *results.Run, label, target, scenario string, threads int, ops []float64, p99us float64, neighbour bool) []byte {
	t.Helper()
	rec := results.NewRecorder()
	for range 100 {
		rec.Record(time.Duration(p99us*0.5) * time.Microsecond)
	}
	rec.Record(time.Duration(p99us) * time.Microsecond)
	r := run.Result(target, scenario, results.Closed, threads, rec, time.Second, map[string]any{"flush": "uring", "commit_batch_mean": float64(threads) / 2})
	r.Rounds, r.RoundOpsSec, r.Label = len(ops), ops, label
	r.Dims = results.Dims{results.DimThreads: float64(threads)}
	mean := 0.0
	for _, v := range ops {
		mean += v / float64(len(ops))
	}
	r.OpsSec = mean
	r.P99US = p99us
	if neighbour {
		r.SetMeasure("background_io_mib_s", 96, results.UnitMiBPerSec, "")
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWritesTable(t *testing.T) {
	quiet := vmRun("9a1e700000000001")
	noisy := vmRun("9a1e700000000002")
	var ls [][]byte
	for _, c := range []struct {
		run       *results.Run
		label     string
		neighbour bool
		p99       float64
	}{{quiet, "writes-quiet", false, 1000}, {noisy, "writes-neighbour", true, 3000}} {
		ls = append(ls,
			writesLine(t, c.run, c.label, "embedded", "create_table.flush.uring.t1", 1, []float64{100, 110, 90}, c.p99, c.neighbour),
			writesLine(t, c.run, c.label, "fs-floor", "create_table.flush.uring.t1", 1, []float64{200, 200, 200}, c.p99/2, c.neighbour),
			writesLine(t, c.run, c.label, "embedded", "create_table.flush.uring.t8", 8, []float64{400, 330, 360}, c.p99, c.neighbour),
			writesLine(t, c.run, c.label, "fs-floor", "create_table.flush.uring.t8", 8, []float64{500, 500, 500}, c.p99/2, c.neighbour),
			writesLine(t, c.run, c.label, "embedded", "load_table.latency", 1, []float64{1, 1, 1}, 1, c.neighbour))
	}
	h := parse(t, ls...)
	text := "<!-- katbench:table writes-quiet layout=writes -->\n<!-- /katbench:table -->\n" +
		"<!-- katbench:table writes-neighbour layout=writes quiet=writes-quiet -->\n<!-- /katbench:table -->\n"
	got := foldWants(t, text, h,
		// catalog ÷ floor per round: 0.5, 0.55, 0.45 → median 0.5 [0.45–0.55].
		"| create_table.flush.uring.t1 | uring | 100.0 | 200.0 | 0.5× [0.45–0.55] | 1,000 | 500.0 | 0.5 / 0.5 |",
		// 400/500, 330/500, 360/500.
		"| create_table.flush.uring.t8 | uring | 363.3 | 500.0 | 0.72× [0.66–0.8] |",
		// t8/t1 per round: 4, 3, 4 for the catalog; 2.5 for the floor.
		"| create_table.flush.uring t8/t1 | 4× [3–4] | 2.5× [2.5–2.5] |",
		// The neighbour's p99 is 3× the quiet one's.
		"| 3× | 3× | 96 |",
		"from run `9a1e700000000002` (label `writes-neighbour`)",
	)
	if strings.Contains(got, "load_table") {
		t.Errorf("a scenario outside the flush sweep is in the table:\n%s", got)
	}
	if _, _, err := FoldReadme([]byte("<!-- katbench:table writes-quiet layout=writes scenarios=nosuch.* -->\n<!-- /katbench:table -->\n"),
		Sources{History: h, HistoryName: "h.jsonl"}); err == nil {
		t.Error("a writes table with no matching lines folded without an error")
	}
}
