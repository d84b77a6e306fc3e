package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// The writes-goals table: every run of the block's labels (and no other),
// each goal's value per run, the median, range, runs meeting it, the
// distribution-free interval of the median and the verdict those give; a
// run missing a side is left out of that goal, a goal no run measured says
// so.
func TestWritesGoalsTable(t *testing.T) {
	const s32, s8, s1 = "create_table.throughput.t32", "create_table.throughput.t8", "create_table.throughput.t1"
	ratios := []float64{0.80, 0.86, 0.89, 0.90, 0.91, 0.92, 0.93, 0.95, 1.00}
	p99s := []float64{1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.5}
	var ls [][]byte
	t0 := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	starts := map[string]time.Time{}
	for i, r := range ratios {
		label := "goals-a"
		if i%2 == 1 {
			label = "goals-b"
		}
		run := vmRun(fmt.Sprintf("run-%d", i))
		starts[run.ID] = t0.Add(time.Duration(i) * time.Hour)
		ls = append(ls,
			writesLine(t, run, label, "embedded-log", s32, 32, []float64{100 * r, 100 * r}, 1000*p99s[i], false),
			writesLine(t, run, label, "fs-floor", s32, 32, []float64{100, 100}, 1000, false),
			writesLine(t, run, label, "embedded-log", s8, 8, []float64{400, 400}, 1000, false),
			writesLine(t, run, label, "embedded-log", s1, 1, []float64{100, 100}, 1000, false))
	}
	// A run of the labels without the floor's t32 cell, and a run of
	// another label: neither moves a t32 row.
	half, other := vmRun("run-half"), vmRun("run-other")
	starts[half.ID], starts[other.ID] = t0.Add(20*time.Hour), t0.Add(21*time.Hour)
	ls = append(ls,
		writesLine(t, half, "goals-b", "embedded-log", s32, 32, []float64{10, 10}, 9000, false),
		writesLine(t, other, "goals-c", "embedded-log", s32, 32, []float64{10, 10}, 9000, false),
		writesLine(t, other, "goals-c", "fs-floor", s32, 32, []float64{100, 100}, 1000, false))
	h := parse(t, ls...)
	for i := range h {
		h[i].TS = starts[h[i].RunID]
	}
	goals := s32 + ":ops_sec>=0.9," + s32 + ":ops_sec>=0.95," + s32 + ":p99<=2," + s8 + "/" + s1 + ":ops_sec>=3,commit_table.throughput.t32:ops_sec>=0.9"
	doc := "<!-- katbench:table g label=goals-a,goals-b layout=writes-goals catalog=embedded-log goals=" + goals + " -->\n<!-- /katbench:table -->\n"
	out := foldWants(t, doc, h,
		"from the 10 runs labelled `goals-a` and `goals-b` in `h.jsonl`",
		"| `"+s32+":ops_sec>=0.9` | 9 | 0.91× | 0.8–1 | 6 of 9 | 0.86–0.95 (96 %) | met at the median, not in every run; **the median's interval crosses the bound** |",
		"| `"+s32+":ops_sec>=0.95` | 9 | 0.91× | 0.8–1 | 2 of 9 | 0.86–0.95 (96 %) | **not met** at the median |",
		"| `"+s32+":p99<=2` | 9 | 1.4× | 1–2.5 | 8 of 9 | 1.1–1.8 (96 %) | met: the median's whole interval meets it; not every run does |",
		"| `"+s8+"/"+s1+":ops_sec>=3` | 9 | 4× | 4–4 | 9 of 9 | 4–4 (96 %) | met in every run |",
		"| `commit_table.throughput.t32:ops_sec>=0.9` | 0 | — | — | — | — | not measured |",
	)
	if strings.Contains(out, "0.1") || strings.Contains(out, "goals-c") {
		t.Errorf("another label's run counted:\n%s", out)
	}

	// Under 6 runs: no interval, and the verdict says why.
	doc = "<!-- katbench:table g label=goals-c layout=writes-goals catalog=embedded-log goals=" + s32 + ":ops_sec<=0.5 -->\n<!-- /katbench:table -->\n"
	foldWants(t, doc, h, "| 1 | 0.1× | 0.1–0.1 | 1 of 1 | — (under 6 runs) | met in every run |")

	// A label named twice would count its runs twice: refused.
	doc = "<!-- katbench:table g label=goals-a,goals-a layout=writes-goals catalog=embedded-log goals=" + s32 + ":ops_sec>=0.9 -->\n<!-- /katbench:table -->\n"
	if _, _, err := FoldReadme([]byte(doc), Sources{History: h, HistoryName: "h.jsonl"}); !errors.Is(err, ErrBadMarker) {
		t.Errorf("label named twice: err %v, want a marker error", err)
	}

	for _, bad := range []string{
		"",                          // no goals
		s32 + ":ops_sec=0.9",        // no >= or <=
		s32 + ":ops_sec>=zero",      // not a number
		s32 + ":ops_sec>=-1",        // not positive
		s32 + ":bogus>=1",           // unknown metric
		":ops_sec>=1",               // no scenario
		s8 + "/:ops_sec>=3",         // empty denominator
		"commit_table.*:ops_sec>=1", // measured by no run
	} {
		attr := ""
		if bad != "" {
			attr = " goals=" + bad
		}
		doc := "<!-- katbench:table g label=goals-a layout=writes-goals catalog=embedded-log" + attr + " -->\n<!-- /katbench:table -->\n"
		_, _, err := FoldReadme([]byte(doc), Sources{History: h, HistoryName: "h.jsonl"})
		if !errors.Is(err, ErrBadMarker) && !errors.Is(err, ErrNoLines) {
			t.Errorf("goals=%q: err %v, want a marker or no-lines error", bad, err)
		}
	}
}

// The interval of the median: the order statistics and coverage of the
// binomial tails, none under 6 values.
func TestMedianInterval(t *testing.T) {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		return v
	}
	if _, _, _, ok := medianInterval(seq(5)); ok {
		t.Error("5 values gave an interval")
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
		cov    float64
	}{
		{6, 1, 6, 1 - 2.0/64},
		{9, 2, 8, 1 - 2*10.0/512},
		{13, 3, 11, 1 - 2*92.0/8192},
		{17, 5, 13, 1 - 2*3214.0/131072},
	} {
		lo, hi, cov, ok := medianInterval(seq(c.n))
		if !ok || lo != c.lo || hi != c.hi || math.Abs(cov-c.cov) > 1e-9 {
			t.Errorf("n=%d: [%v, %v] coverage %v ok %v, want [%v, %v] coverage %v", c.n, lo, hi, cov, ok, c.lo, c.hi, c.cov)
		}
	}
}

// A table of runs on two hosts (here one kernel upgrade between them)
// names both, never only the first run's.
func TestMultiRunProvenanceNamesEveryHost(t *testing.T) {
	a, b := vmRun("run-k1"), vmRun("run-k2")
	a.Host.Kernel, b.Host.Kernel = "6.1", "6.2"
	const s = "create_table.throughput.t32"
	h := parse(t,
		writesLine(t, a, "k", "embedded-log", s, 32, []float64{90}, 1000, false),
		writesLine(t, a, "k", "fs-floor", s, 32, []float64{100}, 1000, false),
		writesLine(t, b, "k", "embedded-log", s, 32, []float64{90}, 1000, false),
		writesLine(t, b, "k", "fs-floor", s, 32, []float64{100}, 1000, false))
	got := workersProvenance(h, "h.jsonl", []string{"k"})
	if !strings.Contains(got, "; hosts ") || !strings.Contains(got, "6.1") || !strings.Contains(got, " and ") || !strings.Contains(got, "6.2") {
		t.Errorf("provenance %q does not name both hosts", got)
	}
	if got := workersProvenance(h[:2], "h.jsonl", []string{"k"}); !strings.Contains(got, "; host vm") {
		t.Errorf("one host: %q", got)
	}
}
