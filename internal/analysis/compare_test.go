package analysis

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
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
		rounds     int
		newHost    string
		crossHost  bool
		want       Verdict
		regression bool
	}{
		{name: "constructed regression", oldUS: 100, newUS: 140, want: Slower, regression: true},
		{name: "rerun of the same build", oldUS: 100, newUS: 100, want: NoChange},
		{name: "faster", oldUS: 100, newUS: 60, want: Faster},
		{name: "significant but under threshold", oldUS: 100, newUS: 110, want: Slower},
		{name: "ops_sec regression", oldUS: 100, newUS: 140, metric: OpsSec, want: Slower, regression: true},
		{name: "ops_sec faster", oldUS: 100, newUS: 70, metric: OpsSec, want: Faster},
		{name: "machine slower overall: control normalised", oldUS: 100, newUS: 140, oldCtl: ptr(20), newCtl: ptr(28), want: NoChange},
		{name: "regression beside a steady control", oldUS: 100, newUS: 140, oldCtl: ptr(20), newCtl: ptr(20), want: Slower, regression: true},
		{name: "control moved too far", oldUS: 100, newUS: 200, oldCtl: ptr(20), newCtl: ptr(40), want: Unreliable},
		{name: "one sample per side: no test", oldUS: 100, newUS: 200, rounds: -1, want: NoTest},
		{name: "cross host on request", oldUS: 100, newUS: 140, newHost: "other", crossHost: true, want: Slower, regression: true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fo := newFixture("old0000000000001", "vm", uint64(2*i+1))
			fn := newFixture("new0000000000002", "vm", uint64(2*i+2))
			if tc.newHost != "" {
				fn = newFixture("new0000000000002", tc.newHost, uint64(2*i+2))
			}
			if tc.rounds < 0 {
				fo.rounds, fn.rounds = 0, 0
			}
			fo.control, fn.control = tc.oldCtl, tc.newCtl
			old := parse(t, fo.line(t, "rest", "load_table.latency", tc.oldUS))
			nw := parse(t, fn.line(t, "rest", "load_table.latency", tc.newUS))
			c, err := Compare(old, nw, CompareOptions{Metric: tc.metric, CrossHost: tc.crossHost})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Rows) != 1 {
				t.Fatalf("rows = %d, want 1", len(c.Rows))
			}
			r := c.Rows[0]
			if r.Verdict != tc.want || r.Regression != tc.regression {
				t.Fatalf("verdict %q regression %v (delta %+.3f p %v notes %v), want %q %v",
					r.Verdict, r.Regression, r.Delta, r.P, r.Notes, tc.want, tc.regression)
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
			if !strings.Contains(buf.String(), "1 cells compared") {
				t.Fatalf("summary missing:\n%s", buf.String())
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

// With no --metric, each cell is compared on the metric its lines name.
func TestCompareHeadlineMetric(t *testing.T) {
	fo, fn := newFixture("old0000000000001", "vm", 21), newFixture("new0000000000002", "vm", 22)
	fo.metric, fn.metric = "ops_sec", "ops_sec"
	c, err := Compare(parse(t, fo.line(t, "rest", "load_table.throughput.t8", 100)), parse(t, fn.line(t, "rest", "load_table.throughput.t8", 140)), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Rows[0]; r.Metric != "ops_sec" || r.Verdict != Slower || !r.Regression || r.Delta > -0.2 {
		t.Fatalf("row %+v", r)
	}
}

func TestCompareDeltaIntervalContainsDelta(t *testing.T) {
	fo, fn := newFixture("old0000000000001", "vm", 7), newFixture("new0000000000002", "vm", 8)
	c, err := Compare(parse(t, fo.line(t, "grpc", "x", 100)), parse(t, fn.line(t, "grpc", "x", 150)), CompareOptions{})
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
// docs/methodology.md, "A real compare pair"). Their rounds are shifted enough for
// the rank test (p 0.026 and 0.041 on the two latency cells), but the
// intervals of those medians' deltas include 0: neither may read as a
// change, and no cell of an unchanged build may be a regression.
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
		if r.Regression || r.Verdict == Slower {
			t.Errorf("%s: %s (regression %v) between two runs of one build", r.Scen, r.Verdict, r.Regression)
		}
		switch r.Scen {
		case "load_table.latency", "table_exists.latency":
			if r.P == nil || *r.P >= 0.05 {
				t.Fatalf("%s: p %v; the fixture no longer has the shift this test is about", r.Scen, r.P)
			}
			if r.Verdict != NoChange || !strings.Contains(strings.Join(r.Notes, ";"), "interval includes 0") {
				t.Errorf("%s: %s, notes %v; want no significant change, saying why", r.Scen, r.Verdict, r.Notes)
			}
		}
	}
}
