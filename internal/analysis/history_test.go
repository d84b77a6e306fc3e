package analysis

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func parseJSONL(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out = append(out, m)
	}
	return out
}

// The committed history (first schema, no rounds) must keep reading.
func TestReadCommittedHistory(t *testing.T) {
	lines, err := Load("../../bench_history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 200 {
		t.Fatalf("read %d lines", len(lines))
	}
	runs := Runs(lines)
	if len(runs) < 6 {
		t.Fatalf("runs = %d", len(runs))
	}
	measured, skipped := 0, 0
	for _, l := range lines {
		switch {
		case l.Skipped != "":
			skipped++
			if l.P50US != nil {
				t.Fatalf("%s: skipped line has a p50", l.Where())
			}
		case l.Measured():
			measured++
			if l.P50US == nil || l.Hist == "" || (l.Loop != "closed" && l.Loop != "open") || (l.Loop == "open" && l.Rate == nil) {
				t.Fatalf("%s: measured line without p50/hist/loop", l.Where())
			}
		}
	}
	if measured == 0 || skipped == 0 {
		t.Fatalf("measured %d skipped %d", measured, skipped)
	}
}

func TestParseLineNewSchema(t *testing.T) {
	l, err := ParseLine([]byte(`{"schema":2,"ts":"2026-12-01T00:00:00Z","run_id":"r","target":"rest","scenario":"s","loop":"open",
		"ops":10,"errors":1,"p50_us":null,"p99_us":3,"ops_sec":10,"command":["katbench","run","rest"],
		"rounds":2,"round_p50_us":[1,2],"round_ops_sec":[5,6],"warmup_errors":2,"params":{"rate":5000},"host":{},"commit":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if l.Schema != 2 || l.Loop != "open" || l.Rate == nil || *l.Rate != 5000 || l.Command != "katbench run rest" {
		t.Fatalf("decoded %+v", l)
	}
	if l.P50US != nil {
		t.Fatal("null p50 decoded as a number")
	}
	if got := P50.Samples(l); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("p50 samples %v", got)
	}
	if _, ok := l.Raw()["warmup_errors"]; !ok {
		t.Fatal("unknown field not kept")
	}
	// A round count (transport params style) is not a sample list.
	l, err = ParseLine([]byte(`{"run_id":"r","target":"t","scenario":"s","ops":3,"p50_us":4,"rounds":10,"params":{},"host":{},"commit":{}}`))
	if err != nil || l.Rounds != nil || len(P50.Samples(l)) != 1 {
		t.Fatalf("rounds=10: %v %v", l.Rounds, err)
	}
}

func TestReadBadInput(t *testing.T) {
	cases := map[string]string{
		"not json":      "{\"run_id\":\"a\",\"target\":\"t\",\"scenario\":\"s\"}\nnot json\n",
		"missing id":    `{"target":"t","scenario":"s"}`,
		"bad ts":        `{"run_id":"a","target":"t","scenario":"s","ts":"yesterday"}`,
		"wrong type":    `{"run_id":"a","target":"t","scenario":"s","ops":"many"}`,
		"half a line":   `{"run_id":"a","target":"t","scen`,
		"array on line": `[1,2]`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(in), "in.jsonl")
			if !errors.Is(err, ErrBadLine) || !strings.Contains(err.Error(), "in.jsonl:") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestSelectRef(t *testing.T) {
	lines := parse(t,
		[]byte(`{"run_id":"abcd1111","target":"t","scenario":"s","params":{},"host":{},"commit":{"sha":"ffff0000"}}`),
		[]byte(`{"run_id":"abcd2222","target":"t","scenario":"s","params":{},"host":{},"commit":{"sha":"ffff0000"}}`),
		[]byte(`{"run_id":"eeee3333","target":"t","scenario":"s","params":{},"host":{},"commit":{"sha":"aaaa9999"}}`))
	if got, err := SelectRef(lines, "abcd1"); err != nil || len(got) != 1 {
		t.Fatalf("run prefix: %v %v", got, err)
	}
	if got, err := SelectRef(lines, "ffff"); err != nil || len(got) != 2 {
		t.Fatalf("commit prefix: %v %v", got, err)
	}
	if _, err := SelectRef(lines, "abcd"); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("two runs: %v", err)
	}
	if _, err := SelectRef(lines, "0000"); !errors.Is(err, ErrNoLines) {
		t.Fatalf("no match: %v", err)
	}
	if _, err := SelectRef(lines, "ab"); !errors.Is(err, ErrNoLines) {
		t.Fatalf("short ref: %v", err)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"run_id":"r","target":"t","scenario":"s","ops":3,"p50_us":4,"rounds":[{"p50_us":1}],"params":{},"host":{},"commit":{}}`))
	f.Add([]byte(`{"run_id":"r","target":"t","scenario":"s","skipped":"why"}`))
	f.Add([]byte(`{"command":["a",1],"schema":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLine(b)
		if err != nil {
			return
		}
		if l.RunID == "" || l.Target == "" || l.Scenario == "" {
			t.Fatal("accepted a line without identity")
		}
		_ = P50.Samples(l)
		_ = CellOf(l, true)
	})
}

func TestParseLineRunnerRounds(t *testing.T) {
	l, err := ParseLine([]byte(`{"run_id":"r","target":"rest","scenario":"load_table.throughput.t8","kind":"throughput","metric":"ops_sec","better":"higher",
		"ops":10,"p50_us":2,"ops_sec":100,"rounds":3,"round_p50_us":[1,null,3],"round_ops_sec":[90,null,110],"params":{},"host":{},"commit":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := P50.Samples(l); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("p50 samples %v: a null round must be left out, never 0", got)
	}
	if got := OpsSec.Samples(l); len(got) != 2 || got[1] != 110 {
		t.Fatalf("ops samples %v", got)
	}
	if HeadlineOf(l).Name != "ops_sec" || l.Kind != "throughput" {
		t.Fatalf("headline %q kind %q", HeadlineOf(l).Name, l.Kind)
	}
}

// TestSelectLabelRunWithSkippedFirstLine: a run whose first line is a
// skipped line written without a label (older builds did so) is still the
// labelled run, and its provenance comes from a line with a command.
func TestSelectLabelRunWithSkippedFirstLine(t *testing.T) {
	h := parse(t,
		[]byte(`{"run_id":"d15c000000000001","ts":"2026-12-02T03:26:00Z","target":"embedded","scenario":"load_table.revalidate.latency","skipped":"no conditional load","params":{},"host":{"hostname":"vm"},"commit":{}}`),
		[]byte(`{"run_id":"d15c000000000001","ts":"2026-12-02T03:27:00Z","label":"discovery","target":"rest","scenario":"load_table.revalidate.latency","ops":1,"p50_us":136,"params":{},"command":["katbench","run","rest"],"host":{"hostname":"vm"},"commit":{}}`))
	lines, _, err := SelectLabel(h, "discovery", nil, "labels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d lines, want both lines of the run", len(lines))
	}
	if ri := Runs(lines)[0]; ri.Label != "discovery" || ri.First.Command == "" {
		t.Fatalf("run info %+v: want label discovery and a first line with the command", ri)
	}
}
