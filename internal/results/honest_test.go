package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestUnmeasuredValuesAreAbsent: a line whose every operation failed
// carries its errors and no percentile, mean or ops/s — never a 0 that
// reads as a measurement.
func TestUnmeasuredValuesAreAbsent(t *testing.T) {
	rec := NewRecorder()
	for range 3 {
		rec.Error()
	}
	line := NewRun().Result("uring", "s3.get.4KiB.c1", Closed, 1, rec, time.Second, nil)
	b, err := json.Marshal(line)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"p50_us", "p99_us", "p999_us", "max_us", "mean_us", "ops_sec"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s = %v on a line with no successful operation: %s", k, v, b)
		}
	}
	if got["errors"] != 3.0 || got["ops"] != 0.0 || got["loop"] != Closed || got["schema"] != float64(SchemaVersion) {
		t.Errorf("errors/ops/loop/schema = %v/%v/%v/%v: %s", got["errors"], got["ops"], got["loop"], got["schema"], b)
	}
	if _, ok := P50.Value(line); ok {
		t.Error("P50.Value of an unmeasured line reports a value")
	}
}

func TestEveryLineCarriesClockOverhead(t *testing.T) {
	run := NewRun()
	if run.ClockOverhead <= 0 {
		t.Fatalf("calibrated clock overhead = %v", run.ClockOverhead)
	}
	rec := NewRecorder()
	rec.Record(time.Microsecond)
	line := run.Result("embedded", "control.latency", Closed, 1, rec, time.Second, nil)
	b, _ := json.Marshal(line)
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	if got["clock_overhead_ns"] != float64(run.ClockOverhead) {
		t.Errorf("clock_overhead_ns = %v, want %v: %s", got["clock_overhead_ns"], float64(run.ClockOverhead), b)
	}
}

func TestCheckErrors(t *testing.T) {
	run := NewRun()
	ok := NewRecorder()
	ok.Record(time.Microsecond)
	failed := NewRecorder()
	failed.Record(time.Microsecond)
	failed.Error()
	clean := run.Result("a", "x", Closed, 1, ok, time.Second, nil)
	bad := run.Result("a", "y", Closed, 1, failed, time.Second, nil)
	bad.FirstError = "broken pipe"
	warm := run.Result("a", "z", Closed, 1, ok, time.Second, nil)
	three := int64(3)
	warm.WarmupErrors = &three
	allowed := bad
	allowed.AllowErrors = true
	for _, c := range []struct {
		name string
		recs []Record
		want bool
	}{
		{"clean", []Record{clean, run.Skipped("a", "s", "why", nil)}, false},
		{"measured errors", []Record{clean, bad}, true},
		{"warm-up errors", []Record{warm}, true},
		{"allowed", []Record{allowed}, false},
	} {
		err := CheckErrors(c.recs)
		if got := errors.Is(err, ErrFailedOps); got != c.want {
			t.Errorf("%s: CheckErrors = %v, want failure %v", c.name, err, c.want)
		}
	}
	if err := CheckErrors([]Record{bad}); !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("error does not carry the first failure: %v", err)
	}
}

func TestTableMarksErrorsAndUnmeasured(t *testing.T) {
	run := NewRun()
	ok := NewRecorder()
	ok.Record(time.Microsecond)
	dead := NewRecorder()
	dead.Error()
	recs := []Record{
		run.Result("http", "s3.get.4KiB.c1", Closed, 1, ok, time.Second, nil),
		run.Result("uring", "s3.get.4KiB.c1", Closed, 1, dead, time.Second, nil),
	}
	recs[1].FirstError = "broken pipe"
	var buf bytes.Buffer
	if err := WriteTable(&buf, recs); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "— !") || !strings.Contains(out, "! errors uring s3.get.4KiB.c1: 1 of 1 operations failed") || !strings.Contains(out, "broken pipe") {
		t.Fatalf("table does not mark the failed, unmeasured cell:\n%s", out)
	}
}

// TestRatioSpread: per-round ratios give a median with its range, and a
// range straddling 1 is a tie.
func TestRatioSpread(t *testing.T) {
	mk := func(p50 ...float64) Record { return Record{Metric: P50, Ops: 1, P50US: p50[0], RoundP50US: p50} }
	base := mk(10, 10, 10)
	s, ok := RatioSpread(base, mk(20, 22, 18))
	if !ok || s.N != 3 || s.Median != 2 || s.Min != 1.8 || math.Abs(s.Max-2.2) > 1e-9 || s.Tie {
		t.Errorf("spread = %+v, %v; want median 2 in [1.8, 2.2], no tie", s, ok)
	}
	s, ok = RatioSpread(base, mk(9, 11, 10.5))
	if !ok || !s.Tie {
		t.Errorf("spread = %+v, %v; want a tie", s, ok)
	}
	withHole := mk(20, math.NaN(), 20)
	if s, ok := RatioSpread(base, withHole); !ok || s.N != 2 {
		t.Errorf("a round that measured nothing must be left out: %+v, %v", s, ok)
	}
	if _, ok := RatioSpread(base, mk(20)); ok {
		t.Error("one round has no spread")
	}
	var buf bytes.Buffer
	a, b := mk(10, 10, 10), mk(9, 11, 10.5)
	a.Target, b.Target, a.Scenario, b.Scenario = "a", "b", "x", "x"
	if err := WriteTable(&buf, []Record{a, b}); err != nil {
		t.Fatal(err)
	}
	// p50 ratios 0.9, 1.05, 1.1 are speeds 1/1.1, 1/1.05, 1/0.9.
	if !strings.Contains(buf.String(), "0.952× p50 [0.909–1.11] tie") {
		t.Errorf("table:\n%s", buf.String())
	}
}

func TestSamplesJSONKeepsUnmeasuredRoundsNull(t *testing.T) {
	b, err := json.Marshal(Samples{1.5, math.NaN(), 3})
	if err != nil || string(b) != "[1.5,null,3]" {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var back Samples
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 3 || back[0] != 1.5 || !math.IsNaN(back[1]) || back[2] != 3 {
		t.Fatalf("unmarshal = %v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"x":1}`), &back); err == nil {
		t.Error("an object decoded as samples")
	}
}
