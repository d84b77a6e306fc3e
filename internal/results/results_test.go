package results

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRecorderPercentilesAndMerge(t *testing.T) {
	a, b := NewRecorder(), NewRecorder()
	for i := 1; i <= 1000; i++ {
		a.Record(time.Duration(i) * time.Microsecond)
	}
	for i := 1001; i <= 2000; i++ {
		b.Record(time.Duration(i) * time.Microsecond)
	}
	b.Error()
	m := Merged(a, b)
	if m.Count() != 2000 || m.Errors() != 1 {
		t.Fatalf("merged count=%d errors=%d, want 2000 and 1", m.Count(), m.Errors())
	}
	// 3 significant digits: the 50th percentile of 1..2000 µs is 1000 µs ± 0.1%.
	if p := m.Percentile(50); p < 999*time.Microsecond || p > 1001*time.Microsecond {
		t.Fatalf("p50 = %v, want ≈1ms", p)
	}
	if p := m.Percentile(99); p < 1978*time.Microsecond || p > 1982*time.Microsecond {
		t.Fatalf("p99 = %v, want ≈1.98ms", p)
	}
}

func TestRecorderClampsOutOfRange(t *testing.T) {
	r := NewRecorder()
	r.Record(0)
	r.Record(-5)
	r.Record(time.Hour)
	if r.Count() != 3 {
		t.Fatalf("count = %d, want 3 (out-of-range values clamped, not dropped)", r.Count())
	}
}

func TestResultLineRoundTripsHistogram(t *testing.T) {
	run := NewRun()
	rec := NewRecorder()
	for i := range 500 {
		rec.Record(time.Duration(100+i) * time.Nanosecond)
	}
	rec.Error()
	line := run.Result("embedded", "load_table.latency", Closed, 1, rec, time.Second, map[string]any{"tables": 200})
	var buf bytes.Buffer
	if err := NewJSONL(&buf).Write(line); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("line is not JSON: %v", err)
	}
	for _, k := range []string{"ts", "run_id", "target", "scenario", "loop", "threads", "ops", "errors", "duration_s",
		"ops_sec", "p50_us", "p99_us", "p999_us", "max_us", "mean_us", "params", "host", "commit", "hist"} {
		if _, ok := got[k]; !ok {
			t.Errorf("line lacks %q: %s", k, buf.String())
		}
	}
	if got["ops"].(float64) != 500 || got["errors"].(float64) != 1 || got["ops_sec"].(float64) != 500 {
		t.Errorf("ops/errors/ops_sec = %v/%v/%v, want 500/1/500", got["ops"], got["errors"], got["ops_sec"])
	}
	back, err := DecodeHist(line.Hist)
	if err != nil {
		t.Fatal(err)
	}
	if back.Count() != 500 || back.Percentile(50) != rec.Percentile(50) {
		t.Fatalf("decoded hist count=%d p50=%v, want 500 and %v", back.Count(), back.Percentile(50), rec.Percentile(50))
	}
}

func TestSkippedLineCarriesNoNumbers(t *testing.T) {
	line := NewRun().Skipped("sql", "resolve_metadata.latency", "no resolver", nil)
	b, err := json.Marshal(line)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"skipped":"no resolver"`) || strings.Contains(s, "p50_us") || strings.Contains(s, `"ops"`) {
		t.Fatalf("skipped line = %s", s)
	}
}

func TestDecodeHistRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "!!!", "AAAA", "HISTFAAAACR4nJNpmSzMwMDAxQABzFCaEUoLMUiS1OQ1"} {
		if _, err := DecodeHist(in); err == nil {
			t.Errorf("DecodeHist(%q) = nil error", in)
		}
	}
}

func TestTableShowsRatioToFirst(t *testing.T) {
	run := NewRun()
	mk := func(target string, d time.Duration) Record {
		r := NewRecorder()
		for range 100 {
			r.Record(d)
		}
		return run.Result(target, "load_table.latency", Closed, 1, r, time.Second, nil)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, []Record{mk("embedded", time.Microsecond), mk("sql", 50*time.Microsecond),
		run.Skipped("sql", "resolve_metadata.latency", "no resolver", nil)}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// sql is 50 times slower: 0.02× embedded's speed.
	if !regexp.MustCompile(`0\.02× p50`).MatchString(out) || !strings.Contains(out, "skipped sql resolve_metadata.latency: no resolver") {
		t.Fatalf("table:\n%s", out)
	}
}

// BenchmarkRecord is the harness's own cost per operation: one clock pair
// plus one histogram write. Target: ≤ 50 ns.
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		r.Record(time.Since(t0))
	}
}

// BenchmarkRecordOnly is the histogram write alone.
func BenchmarkRecordOnly(b *testing.B) {
	r := NewRecorder()
	b.ReportAllocs()
	d := 1234 * time.Nanosecond
	for b.Loop() {
		r.Record(d)
	}
}

// TestTableRatioFollowsLineMetric: the ratio column uses the metric the
// line carries, whatever its scenario is called.
func TestTableRatioFollowsLineMetric(t *testing.T) {
	run := NewRun()
	mk := func(target, scenario string, m Metric, d time.Duration, elapsed time.Duration) Record {
		r := NewRecorder()
		for range 100 {
			r.Record(d)
		}
		rec := run.Result(target, scenario, Closed, 1, r, elapsed, nil)
		rec.Metric, rec.Better = m, m.Better()
		return rec
	}
	// Named like a throughput row but measured as a latency: p50 ratio 4.
	// Named like a latency row but measured as throughput: ops/s ratio 0.5.
	recs := []Record{
		mk("a", "x.throughput.lat", P50, time.Microsecond, time.Second),
		mk("b", "x.throughput.lat", P50, 4*time.Microsecond, time.Second),
		mk("a", "y.latency.tput", OpsSec, time.Microsecond, time.Second),
		mk("b", "y.latency.tput", OpsSec, time.Microsecond, 2*time.Second),
	}
	if got := Ratio(recs[0], recs[1]); got < 3.99 || got > 4.01 {
		t.Errorf("p50 ratio = %v, want 4", got)
	}
	if got := Ratio(recs[2], recs[3]); got != 0.5 {
		t.Errorf("ops/s ratio = %v, want 0.5", got)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, recs); err != nil {
		t.Fatal(err)
	}
	// Both rows read as speed: b's p50 is 4× a's (0.25× the speed), b's
	// ops/s half a's (0.5× the speed).
	if out := buf.String(); !strings.Contains(out, "0.25× p50") || !strings.Contains(out, "0.5× ops/s") {
		t.Fatalf("table:\n%s", out)
	}
}

// TestTableFitsTheWidth: four targets do not fit 100 columns side by side;
// the table comes in blocks no wider than that, each with the scenario
// column, every target and its speed column present, the direction of the
// speed said once, and repeated skip reasons folded into one line.
func TestTableFitsTheWidth(t *testing.T) {
	run := NewRun()
	var recs []Record
	targets := []string{"embedded", "rest", "grpc", "nessie"}
	for _, sc := range []string{"load_table.latency", "create_table.latency"} {
		for i, tg := range targets {
			r := NewRecorder()
			for range 100 {
				r.Record(time.Duration(i+1) * 37 * time.Microsecond)
			}
			recs = append(recs, run.Result(tg, sc, Closed, 1, r, time.Second, nil))
		}
	}
	const why = "competitor's durability mode is not the client's to choose"
	for _, tg := range targets[1:] {
		for _, mode := range []string{"immediate", "eventual", "none"} {
			recs = append(recs, run.Skipped(tg, "create_table.durability."+mode, why, nil))
		}
	}
	var wide, narrow bytes.Buffer
	if err := WriteTable(&wide, recs); err != nil {
		t.Fatal(err)
	}
	if err := WriteTableWidth(&narrow, recs, 100); err != nil {
		t.Fatal(err)
	}
	if maxLine(wide.String()) <= 100 {
		t.Fatalf("fixture too narrow to test fitting:\n%s", wide.String())
	}
	out := narrow.String()
	table, _, _ := strings.Cut(out, "\n×embedded:")
	if n := maxLine(table); n > 100 {
		t.Errorf("table line of %d columns in a 100-column fit:\n%s", n, out)
	}
	if got := strings.Count(table, "scenario"); got < 2 {
		t.Errorf("%d blocks, want the table wrapped into several:\n%s", got, out)
	}
	for _, tg := range targets[1:] {
		if !strings.Contains(table, tg+" p50 µs") || strings.Count(out, "×embedded") < 3 {
			t.Errorf("%s or its speed column missing:\n%s", tg, out)
		}
	}
	// rest's p50 is twice embedded's: half its speed.
	if !strings.Contains(out, "0.5× p50") {
		t.Errorf("speed of rest missing:\n%s", out)
	}
	if strings.Count(strings.Join(strings.Fields(out), " "), "above 1× is faster") != 1 {
		t.Errorf("the speed's direction should be said once:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ") // notes are word-wrapped
	if strings.Count(flat, why) != 1 || !strings.Contains(flat, "skipped 9 lines (rest 3, grpc 3, nessie 3;") {
		t.Errorf("repeated skip reasons not folded into one counted line:\n%s", out)
	}
}

func maxLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// TestSkippedLineKeepsLabelAndCommand: a skipped line says which labelled
// run and which command it belongs to, like a measured one (a table that
// picks a run by label must find a run whose first line was skipped), and
// its command is redacted as a measured line's is.
func TestSkippedLineKeepsLabelAndCommand(t *testing.T) {
	run := NewRun()
	run.Command = []string{"katbench", "run", "nessie", "--prop", "credential=id:s3cret", "--label", "discovery"}
	line := run.Skipped("nessie", "create_view.latency", "no view endpoints", nil)
	line.Label = "discovery"
	b, err := json.Marshal(line)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Label != "discovery" || len(back.Command) != len(run.Command) || back.Command[1] != "run" {
		t.Fatalf("skipped line decoded with label %q, command %q; want the run's", back.Label, back.Command)
	}
	if strings.Contains(string(b), "s3cret") {
		t.Fatalf("a secret of the command reached a skipped line: %s", b)
	}
}
