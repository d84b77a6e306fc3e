package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

func ptr(v float64) *float64 { return &v }

func TestCompareVerdicts(t *testing.T) {
	cases := []struct {
		name       string
		oldUS      float64
		newUS      float64
		metric     Metric
		oldCtl     *float64
		newCtl     *float64
		runs       int // per side; 0 means 6
		newHost    string
		crossHost  bool
		margin     float64
		want       Verdict
		regression bool
	}{
		{name: "constructed regression", oldUS: 100, newUS: 140, want: Slower, regression: true},
		{name: "rerun of the same build", oldUS: 100, newUS: 100, want: NoChange},
		{name: "faster", oldUS: 100, newUS: 60, want: Faster},
		{name: "significant but under threshold", oldUS: 100, newUS: 115, want: Slower},
		{name: "ops_sec regression", oldUS: 100, newUS: 140, metric: OpsSec, want: Slower, regression: true},
		{name: "ops_sec faster", oldUS: 100, newUS: 70, metric: OpsSec, want: Faster},
		{name: "machine slower overall: control normalised", oldUS: 100, newUS: 140, oldCtl: ptr(20), newCtl: ptr(28), want: NoChange},
		{name: "regression beside a steady control", oldUS: 100, newUS: 140, oldCtl: ptr(20), newCtl: ptr(20), want: Slower, regression: true},
		{name: "control moved too far", oldUS: 100, newUS: 200, oldCtl: ptr(20), newCtl: ptr(40), want: Unreliable},
		{name: "three runs a side: need runs", oldUS: 100, newUS: 200, runs: 3, want: NeedRuns},
		{name: "four runs a side decide", oldUS: 100, newUS: 200, runs: 4, want: Slower, regression: true},
		{name: "cross host on request", oldUS: 100, newUS: 140, newHost: "other", crossHost: true, want: Slower, regression: true},
		{name: "equivalent within the margin", oldUS: 100, newUS: 100, runs: 10, margin: 0.10, want: Same},
		{name: "a real change is not equivalent", oldUS: 100, newUS: 140, margin: 0.05, want: Slower, regression: true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.runs
			if n == 0 {
				n = 6
			}
			host := "vm"
			if tc.newHost != "" {
				host = tc.newHost
			}
			old := runs(t, "old", n, uint64(2*i+1), "rest", "load_table.latency", tc.oldUS, func(_ int, f *fixture) { f.control = tc.oldCtl })
			nw := runs(t, "new", n, uint64(2*i+2), "rest", "load_table.latency", tc.newUS, func(_ int, f *fixture) {
				f.control = tc.newCtl
				f.run.Host.Hostname = host
			})
			c, err := Compare(old, nw, CompareOptions{Metric: tc.metric, CrossHost: tc.crossHost, Margin: tc.margin})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Rows) != 1 {
				t.Fatalf("rows = %d, want 1", len(c.Rows))
			}
			r := c.Rows[0]
			if r.Verdict != tc.want || r.Regression != tc.regression {
				t.Fatalf("verdict %q regression %v (delta %+.3f [%v, %v] p %v notes %v), want %q %v",
					r.Verdict, r.Regression, r.Delta, r.DeltaLo, r.DeltaHi, r.P, r.Notes, tc.want, tc.regression)
			}
			if r.Old.N != n || r.New.N != n || c.OldRuns != n {
				t.Fatalf("n = %d/%d, runs %d; want one sample per run (%d)", r.Old.N, r.New.N, c.OldRuns, n)
			}
			if tc.crossHost && !strings.Contains(r.CrossHost, "vm vs other") {
				t.Fatalf("cross-host row does not say so: %q", r.CrossHost)
			}
			if (tc.oldCtl != nil) != r.Normalised {
				t.Fatalf("normalised = %v with control %v", r.Normalised, tc.oldCtl)
			}
			var buf bytes.Buffer
			if err := WriteCompareText(&buf, c); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "1 cells compared") || !strings.Contains(buf.String(), "Benjamini-Hochberg over") {
				t.Fatalf("summary missing:\n%s", buf.String())
			}
			if tc.want == NeedRuns && (!strings.Contains(buf.String(), "need 4 runs") || strings.Contains(buf.String(), " no significant change ")) {
				t.Fatalf("a 3-run compare must say it needs 4 runs:\n%s", buf.String())
			}
			if tc.want == Same && !strings.Contains(buf.String(), "same within ±10 %") {
				t.Fatalf("equivalence not printed:\n%s", buf.String())
			}
			buf.Reset()
			if err := WriteCompareJSONL(&buf, c); err != nil {
				t.Fatal(err)
			}
			if got := parseJSONL(t, buf.Bytes()); len(got) != 1 || got[0]["verdict"] != string(tc.want) {
				t.Fatalf("jsonl = %v", got)
			}
		})
	}
}

// Rounds are not independent samples: one run a side with ten rounds each
// and a large shift between them cannot decide anything.
func TestCompareRoundsAreNotSamples(t *testing.T) {
	old := runs(t, "old", 1, 31, "rest", "load_table.latency", 100, nil)
	nw := runs(t, "new", 1, 32, "rest", "load_table.latency", 150, nil)
	c, err := Compare(old, nw, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Rows[0]
	if r.Verdict != NeedRuns || r.NeedRuns != 4 || r.Regression || r.P != nil {
		t.Fatalf("row %+v; want need 4 runs, no test", r)
	}
	if r.Old.Rounds != 10 || r.Old.N != 1 || r.Old.RunSpread == nil {
		t.Fatalf("old stat %+v: want 1 run of 10 rounds with its spread", r.Old)
	}
}

func TestMinRuns(t *testing.T) {
	for _, tc := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.01, 5}, {0.1, 3}, {0.001, 7}} {
		if got := MinRuns(tc.alpha); got != tc.want {
			t.Errorf("MinRuns(%g) = %d, want %d", tc.alpha, got, tc.want)
		}
	}
	if p := minUTestP(3, 3); math.Abs(p-0.1) > 1e-12 {
		t.Errorf("min p of 3 vs 3 = %v, want 0.1", p)
	}
	if p := minUTestP(4, 4); math.Abs(p-2.0/70) > 1e-12 {
		t.Errorf("min p of 4 vs 4 = %v, want 2/70", p)
	}
}

// uCritical against the published two-sided 5 % critical values of U
// (reject when U ≤ value): 4/4 → 0, 6/6 → 5, 8/8 → 13, 10/10 → 23, 5/8 → 6.
func TestUCritical(t *testing.T) {
	for _, tc := range []struct{ n1, n2, crit int }{{4, 4, 0}, {6, 6, 5}, {8, 8, 13}, {10, 10, 23}, {5, 8, 6}} {
		if got := uCritical(tc.n1, tc.n2, 0.025); got != tc.crit+1 {
			t.Errorf("uCritical(%d, %d) = %d, want %d", tc.n1, tc.n2, got, tc.crit+1)
		}
	}
	if got := uCritical(3, 3, 0.025); got != 0 {
		t.Errorf("uCritical(3, 3) = %d, want 0 (no finite interval)", got)
	}
}

func TestBenjaminiHochberg(t *testing.T) {
	got := benjaminiHochberg([]float64{0.01, 0.04, 0.03, 0.5})
	want := []float64{0.04, 0.04 * 4 / 3, 0.04, 0.5} // 0.03·4/2 = 0.06 > 0.04·4/3
	want[2] = math.Min(0.03*4/2, want[1])
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("q = %v, want %v", got, want)
		}
	}
}

// One cell at the smallest p of 4 vs 4 runs is a discovery alone, but not
// among ten unchanged cells: the correction is over the comparison.
func TestCompareCorrectsForManyCells(t *testing.T) {
	shifted := func(scen string, seed uint64, us float64) ([]Line, []Line) {
		return runs(t, "old", 4, seed, "rest", scen, 100, nil), runs(t, "new", 4, seed+1, "rest", scen, us, nil)
	}
	o, n := shifted("load_table.latency", 41, 200)
	c, err := Compare(o, n, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows[0].Verdict != Slower || c.Tests != 1 {
		t.Fatalf("alone: %s over %d tests", c.Rows[0].Verdict, c.Tests)
	}
	for i := range 9 {
		oo, nn := shifted(fmt.Sprintf("s%d.latency", i), uint64(50+2*i), 100)
		o, n = append(o, oo...), append(n, nn...)
	}
	c, err = Compare(o, n, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tests != 10 {
		t.Fatalf("%d tests, want 10", c.Tests)
	}
	r := c.Rows[0]
	if r.Scen != "load_table.latency" || r.Verdict != NoChange || *r.Q < 0.05 || *r.P > 0.05 {
		t.Fatalf("among ten: %s %s p %v q %v", r.Scen, r.Verdict, *r.P, *r.Q)
	}
}

// Counters on both sides are compared beside the headline metric, at the
// deterministic threshold and without control normalisation.
func TestCompareCounters(t *testing.T) {
	allocs := func(v float64) func(int, *fixture) {
		return func(i int, f *fixture) {
			a := v * (1 + 0.001*float64(i))
			b := 100 * a
			f.counters = &results.Counters{Allocs: &a, AllocBytes: &b}
			f.control = ptr(20)
		}
	}
	old := runs(t, "old", 6, 61, "rest", "load_table.latency", 100, allocs(300))
	nw := runs(t, "new", 6, 62, "rest", "load_table.latency", 100, allocs(345))
	c, err := Compare(old, nw, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Row{}
	for _, r := range c.Rows {
		got[r.Metric] = r
	}
	if len(c.Rows) != 3 || got["p50"].Regression || got["allocs"].Metric == "" {
		t.Fatalf("rows %v", c.Rows)
	}
	for _, m := range []string{"allocs", "alloc_bytes"} {
		r := got[m]
		if !r.Regression || r.Normalised || r.Threshold != DeterministicThreshold || math.Abs(r.Delta-0.15) > 0.01 {
			t.Fatalf("%s: %+v; want a regression of +15 %% at the 10 %% threshold", m, r)
		}
	}
	// Background noise near zero is not a regression, however large the
	// ratio: 0.002 → 0.004 allocations per operation.
	c, err = Compare(runs(t, "old", 6, 63, "rest", "load_table.latency", 100, allocs(0.002)), runs(t, "new", 6, 64, "rest", "load_table.latency", 100, allocs(0.004)), CompareOptions{Metric: Counters[0]})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Rows[0]; r.Verdict != Slower || r.Regression || !strings.Contains(strings.Join(r.Notes, ";"), "the smallest change that counts") {
		t.Fatalf("near-zero counter: %s regression %v notes %v", r.Verdict, r.Regression, r.Notes)
	}
	// A side without counters compares the headline only: absent is not 0.
	c, err = Compare(old, runs(t, "new", 6, 62, "rest", "load_table.latency", 100, nil), CompareOptions{})
	if err != nil || len(c.Rows) != 1 {
		t.Fatalf("rows %v, err %v", c.Rows, err)
	}
}

// With no --metric, each cell is compared on the metric its lines name.
func TestCompareHeadlineMetric(t *testing.T) {
	opsSec := func(_ int, f *fixture) { f.metric = "ops_sec" }
	c, err := Compare(runs(t, "old", 6, 21, "rest", "load_table.throughput.t8", 100, opsSec), runs(t, "new", 6, 22, "rest", "load_table.throughput.t8", 140, opsSec), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Rows[0]; r.Metric != "ops_sec" || r.Verdict != Slower || !r.Regression || r.Delta > -0.2 {
		t.Fatalf("row %+v", r)
	}
}

func TestCompareDeltaIntervalContainsDelta(t *testing.T) {
	c, err := Compare(runs(t, "old", 8, 7, "grpc", "x", 100, nil), runs(t, "new", 8, 8, "grpc", "x", 150, nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Rows[0]
	if r.DeltaLo == nil || r.DeltaHi == nil || *r.DeltaLo > r.Delta || r.Delta > *r.DeltaHi {
		t.Fatalf("delta %v not inside [%v, %v]", r.Delta, r.DeltaLo, r.DeltaHi)
	}
	if r.Delta < 0.4 || r.Delta > 0.6 {
		t.Fatalf("delta %v, want about +50 %%", r.Delta)
	}
}

func TestCompareNoCommonCells(t *testing.T) {
	fa, fb := newFixture("aaaa000000000001", "vm", 1), newFixture("bbbb000000000002", "elsewhere", 2)
	a := parse(t, fa.line(t, "rest", "load_table.latency", 100))
	b := parse(t, fb.line(t, "rest", "load_table.latency", 100))
	skipped := parse(t, []byte(`{"ts":"2026-11-29T23:52:44Z","run_id":"cccc","target":"embedded","scenario":"control.latency","skipped":"no control","params":{},"host":{},"commit":{}}`))
	cases := []struct {
		name     string
		old, new []Line
		want     string
	}{
		{"different hosts", a, b, "different hosts"},
		{"NEW empty", a, skipped, "NEW has no measured lines"},
		{"OLD empty", nil, a, "OLD has no measured lines"},
		{"different scenarios", a, parse(t, fa.line(t, "rest", "table_exists.latency", 100)), "none with its headline metric"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(tc.old, tc.new, CompareOptions{})
			if !errors.Is(err, ErrNoCommonCells) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrNoCommonCells saying %q", err, tc.want)
			}
		})
	}
}

func TestCellIgnoresPlaceParams(t *testing.T) {
	l1 := parse(t, []byte(`{"run_id":"r1","target":"rest","scenario":"s","ops":1,"p50_us":1,"params":{"dir":"/tmp/a","url":"http://127.0.0.1:1","tables":200},"host":{"hostname":"vm"},"commit":{}}`))[0]
	l2 := parse(t, []byte(`{"run_id":"r2","target":"rest","scenario":"s","ops":1,"p50_us":1,"params":{"dir":"/tmp/b","url":"http://127.0.0.1:2","tables":200},"host":{"hostname":"vm"},"commit":{}}`))[0]
	l3 := parse(t, []byte(`{"run_id":"r3","target":"rest","scenario":"s","ops":1,"p50_us":1,"params":{"tables":10000},"host":{"hostname":"vm"},"commit":{}}`))[0]
	if CellOf(l1, true) != CellOf(l2, true) {
		t.Fatalf("cells differ by place params: %v vs %v", CellOf(l1, true), CellOf(l2, true))
	}
	if CellOf(l1, true) == CellOf(l3, true) {
		t.Fatal("cells with different tables match")
	}
}

// TestCompareRealAAPair compares two runs of one clean build a minute apart
// on a quiet machine (testdata/aa_pair.jsonl, from bench_history.jsonl;
// docs/methodology.md, "A real compare pair"). Their six rounds each are shifted
// enough for a rank test over rounds (p 0.026 and 0.041 on the two latency
// cells, and load_table.throughput.t1 read +35 % faster), but one run a
// side is one sample: no cell may read as a change, every cell says how
// many runs it needs.
func TestCompareRealAAPair(t *testing.T) {
	f, err := os.Open("testdata/aa_pair.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := Read(f, "aa_pair.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var old, nw []Line
	for _, l := range lines {
		switch l.RunID {
		case "f7e7192ef3526183":
			old = append(old, l)
		case "5954687451798420":
			nw = append(nw, l)
		}
	}
	c, err := Compare(old, nw, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 4 {
		t.Fatalf("%d rows, want 4", len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Regression || r.Verdict != NeedRuns || r.NeedRuns != 4 || r.Old.Rounds != 6 {
			t.Errorf("%s: %s (regression %v, need %d, rounds %d) between two runs of one build; want need 4 runs",
				r.Scen, r.Verdict, r.Regression, r.NeedRuns, r.Old.Rounds)
		}
	}
}

// TestCellOfOldLinesIgnoresMeasuredParams: schema 2 lines kept measured
// values in params (cpu_us_per_op differs run by run); results.Decode
// copies them to measures, and they must not split one cell into one per
// run, so a build's old lines still pair with each other and with a new
// build's (testdata/schema2_transport.jsonl: two runs of a schema 2
// build's `transport --quick`, one of a schema 3 build's, http s3.head.c1).
func TestCellOfOldLinesIgnoresMeasuredParams(t *testing.T) {
	f, err := os.Open("testdata/schema2_transport.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := Read(f, "schema2_transport.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[0].Schema != 2 || lines[1].Schema != 2 || lines[2].Schema != 3 {
		t.Fatalf("fixture: %d lines; want two schema 2 lines and one schema 3 line", len(lines))
	}
	if lines[0].Params["cpu_us_per_op"] == lines[1].Params["cpu_us_per_op"] {
		t.Fatal("fixture: the two old runs carry the same cpu_us_per_op; the test needs them to differ")
	}
	if _, ok := lines[0].Measure("cpu_us_per_op"); !ok {
		t.Fatal("Decode did not make the old line's cpu_us_per_op a measure")
	}
	for i, l := range lines[1:] {
		if CellOf(l, true) != CellOf(lines[0], true) {
			t.Errorf("line %d: cell %v, want the old line's %v", i+1, CellOf(l, true), CellOf(lines[0], true))
		}
	}
}

// TestUnpairedCellSaysWhy: a cell one side alone has names how the other
// side's nearest cell of the same name differs (here a param the new
// build added), and says nothing when the other side has no such cell.
func TestUnpairedCellSaysWhy(t *testing.T) {
	old := parse(t,
		[]byte(`{"run_id":"o1","target":"embedded","scenario":"data.scan","ops":1,"p50_us":1,"params":{"transport":"http","rows":100},"host":{"hostname":"vm"},"commit":{}}`),
		[]byte(`{"run_id":"o1","target":"embedded","scenario":"data.scan","ops":1,"p50_us":1,"params":{"transport":"uring","rows":100},"host":{"hostname":"vm"},"commit":{}}`),
		[]byte(`{"run_id":"o1","target":"embedded","scenario":"only.old","ops":1,"p50_us":1,"params":{},"host":{"hostname":"vm"},"commit":{}}`),
		[]byte(`{"run_id":"o1","target":"embedded","scenario":"control.latency","ops":1,"p50_us":1,"params":{},"host":{"hostname":"vm"},"commit":{}}`))
	nw := parse(t,
		[]byte(`{"run_id":"n1","target":"embedded","scenario":"data.scan","ops":1,"p50_us":1,"params":{"transport":"http","rows":100,"flush":"syncfs"},"host":{"hostname":"vm"},"commit":{}}`),
		[]byte(`{"run_id":"n1","target":"embedded","scenario":"control.latency","ops":1,"p50_us":1,"params":{},"host":{"hostname":"vm"},"commit":{}}`))
	c, err := Compare(old, nw, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteCompareText(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		// the http cell is the nearest: only flush differs.
		"only in NEW: embedded data.scan (the other side's nearest cell of that name differs: flush=syncfs here only)\n",
		"only in OLD: embedded data.scan (the other side's nearest cell of that name differs: flush=syncfs there only)\n",
		// the uring cell's nearest differs in two params.
		"only in OLD: embedded data.scan (the other side's nearest cell of that name differs: flush=syncfs there only, transport uring here, http there)\n",
		"only in OLD: embedded only.old\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
}

// TestCellSeparatesGOMAXPROCS: a run with fewer Ps than cores is another
// cell on the same host, and its host label says so; a line without the
// field (one P per core) matches the lines of earlier builds.
func TestCellSeparatesGOMAXPROCS(t *testing.T) {
	line := func(host string) Line {
		return parse(t, []byte(`{"run_id":"r","target":"http","scenario":"s","ops":1,"p50_us":1,"host":`+host+`,"commit":{}}`))[0]
	}
	all := line(`{"hostname":"vm","cores":2}`)
	old := line(`{"hostname":"vm","cores":2}`)
	one := line(`{"hostname":"vm","cores":2,"gomaxprocs":1}`)
	if CellOf(all, true) != CellOf(old, true) {
		t.Fatal("two lines with one P per core are different cells")
	}
	if CellOf(all, true) == CellOf(one, true) {
		t.Fatal("GOMAXPROCS 1 and 2 on a 2-core host are one cell")
	}
	if got := one.HostLabel(); !strings.Contains(got, "2 cores, GOMAXPROCS 1") {
		t.Errorf("host label %q does not give GOMAXPROCS", got)
	}
	if got := all.HostLabel(); strings.Contains(got, "GOMAXPROCS") {
		t.Errorf("host label %q gives GOMAXPROCS for one P per core", got)
	}
}
