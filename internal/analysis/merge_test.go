package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// shardLines measures n workers of one distributed run, each with its own
// latency distribution, and returns their lines and one recorder holding
// every sample any worker recorded.
func shardLines(t testing.TB, n int, hosts []string, commit string) ([][]byte, *results.Recorder) {
	t.Helper()
	all := results.NewRecorder()
	rng := rand.New(rand.NewPCG(42, 43))
	var out [][]byte
	end := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	for w := range n {
		run := &results.Run{ID: fmt.Sprintf("worker%02d", w), Host: results.Host{Hostname: hosts[w%len(hosts)], Cores: 2, CPU: "c", OS: "linux", Arch: "amd64"},
			Commit: results.Commit{SHA: commit}}
		rec := results.NewRecorder()
		for range 1000 + 100*w {
			// Workers differ: averaging their percentiles would be wrong.
			d := time.Duration((50 + 40*float64(w) + 30*rng.ExpFloat64()) * 1e3)
			rec.Record(d)
			all.Record(d)
		}
		rec.Error()
		all.Error()
		r := run.Result("rest", "load_table.throughput.t8", results.Closed, 8, rec, 2*time.Second, map[string]any{"tables": 200, "shard": fmt.Sprintf("%d/%d", w, n), "shards": n})
		r.TS = end.Add(time.Duration(w) * time.Millisecond).Format(time.RFC3339Nano)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out, all
}

func TestMergeAddsHistograms(t *testing.T) {
	raw, all := shardLines(t, 4, []string{"vm"}, "abc")
	ms, err := Merge(parse(t, raw...), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("merged into %d cells, want 1", len(ms))
	}
	got, err := ParseLine(ms[0].JSON)
	if err != nil {
		t.Fatalf("merged line does not parse: %v\n%s", err, ms[0].JSON)
	}
	var srcOps, srcErrs int64
	for _, l := range parse(t, raw...) {
		srcOps += l.Ops
		srcErrs += l.Errors
	}
	if got.Ops != srcOps || got.Ops != all.Count() || got.Errors != srcErrs {
		t.Fatalf("ops %d errors %d, want %d and %d", got.Ops, got.Errors, srcOps, srcErrs)
	}
	for _, q := range []struct {
		v *float64
		q float64
	}{{got.P50US, 50}, {got.P99US, 99}, {got.P999US, 99.9}, {got.MaxUS, 100}} {
		want := float64(all.Percentile(q.q)) / 1e3
		if q.v == nil || *q.v != want {
			t.Fatalf("p%v = %v, want %v from the histogram of all samples", q.q, q.v, want)
		}
	}
	if got.Threads != 32 {
		t.Fatalf("threads %d, want 4 workers × 8", got.Threads)
	}
	if got.OpsSec == nil || *got.OpsSec < float64(srcOps)/2.01 || *got.OpsSec > float64(srcOps)/2 {
		t.Fatalf("ops_sec %v for %d ops over ~2 s", got.OpsSec, srcOps)
	}
	var m map[string]any
	if err := json.Unmarshal(ms[0].JSON, &m); err != nil {
		t.Fatal(err)
	}
	if ids, _ := m["merged_from"].([]any); len(ids) != 4 {
		t.Fatalf("merged_from = %v", m["merged_from"])
	}
	if p, _ := m["params"].(map[string]any); p["shard"] != nil || p["shards"] != float64(4) {
		t.Fatalf("params = %v", p)
	}
}

func TestMergeHosts(t *testing.T) {
	raw, _ := shardLines(t, 4, []string{"a", "b"}, "abc")
	ms, err := Merge(parse(t, raw...), MergeOptions{})
	if err != nil || len(ms) != 2 {
		t.Fatalf("same-host merge of two hosts: %d cells, %v", len(ms), err)
	}
	ms, err = Merge(parse(t, raw...), MergeOptions{CrossHost: true})
	if err != nil || len(ms) != 1 {
		t.Fatalf("cross-host merge: %d cells, %v", len(ms), err)
	}
	l, err := ParseLine(ms[0].JSON)
	if err != nil || l.Host.Hostname != "a+b" || l.Host.Cores != 4 {
		t.Fatalf("cross-host line host = %+v, %v", l.Host, err)
	}
}

func TestMergeRefuses(t *testing.T) {
	a, _ := shardLines(t, 1, []string{"vm"}, "abc")
	b, _ := shardLines(t, 2, []string{"vm"}, "def")
	if _, err := Merge(parse(t, a[0], b[1]), MergeOptions{}); !errors.Is(err, ErrMixedBuilds) {
		t.Fatalf("mixed builds: %v", err)
	}
	var m map[string]any
	_ = json.Unmarshal(a[0], &m)
	delete(m, "hist")
	nohist, _ := json.Marshal(m)
	if _, err := Merge(parse(t, nohist), MergeOptions{}); !errors.Is(err, ErrNoHist) {
		t.Fatalf("no hist: %v", err)
	}
}

func BenchmarkMerge100(b *testing.B) {
	raw, _ := shardLines(b, 100, []string{"vm"}, "abc")
	lines := parse(b, raw...)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Merge(lines, MergeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCombinedHostAddsPs: shards with fewer Ps than cores combine into a
// host whose GOMAXPROCS is their sum; shards with one P per core give none.
func TestCombinedHostAddsPs(t *testing.T) {
	full := results.Host{Hostname: "a", Cores: 2}
	one := results.Host{Hostname: "b", Cores: 2, GOMAXPROCS: 1}
	if h := combinedHost([]results.Host{full, full}); h.Cores != 4 || h.GOMAXPROCS != 0 {
		t.Errorf("two full hosts: %+v", h)
	}
	if h := combinedHost([]results.Host{full, one}); h.Cores != 4 || h.GOMAXPROCS != 3 {
		t.Errorf("a full and a 1-P host: %+v, want cores 4, gomaxprocs 3", h)
	}
}

// windowed rewrites a line's measured window: it ended at end and lasted d.
func windowed(t *testing.T, raw []byte, end time.Time, d time.Duration) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["ts"] = end.UTC().Format(time.RFC3339Nano)
	m["duration_s"] = d.Seconds()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeSkew(t *testing.T) {
	raw, _ := shardLines(t, 2, []string{"a", "b"}, "abc")
	t0 := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	// Worker b starts 200 ms after a and ends 300 ms after it: together
	// for 9.8 s of a 10.3 s span (95 %).
	near := [][]byte{windowed(t, raw[0], t0.Add(10*time.Second), 10*time.Second),
		windowed(t, raw[1], t0.Add(10300*time.Millisecond), 10100*time.Millisecond)}
	ms, err := Merge(parse(t, near...), MergeOptions{CrossHost: true})
	if err != nil || len(ms) != 1 {
		t.Fatalf("95 %% overlap: %d cells, %v", len(ms), err)
	}
	var m map[string]any
	if err := json.Unmarshal(ms[0].JSON, &m); err != nil {
		t.Fatal(err)
	}
	if m["skew_start_ms"] != 200.0 || m["skew_end_ms"] != 300.0 {
		t.Fatalf("skew = %v / %v ms, want 200 / 300", m["skew_start_ms"], m["skew_end_ms"])
	}

	// b starts 5 s late: together for 5 s of 15 s (33 %).
	far := [][]byte{windowed(t, raw[0], t0.Add(10*time.Second), 10*time.Second),
		windowed(t, raw[1], t0.Add(15*time.Second), 10*time.Second)}
	_, err = Merge(parse(t, far...), MergeOptions{CrossHost: true})
	if !errors.Is(err, ErrSkewedWindows) || !strings.Contains(err.Error(), "33%") || !strings.Contains(err.Error(), "5000 ms") {
		t.Fatalf("33 %% overlap: %v, want ErrSkewedWindows saying 33%% and 5000 ms", err)
	}
	ms, err = Merge(parse(t, far...), MergeOptions{CrossHost: true, Force: true})
	if err != nil || len(ms) != 1 {
		t.Fatalf("forced: %d cells, %v", len(ms), err)
	}
	if err := json.Unmarshal(ms[0].JSON, &m); err != nil || m["skew_start_ms"] != 5000.0 {
		t.Fatalf("forced line skew_start_ms = %v, %v", m["skew_start_ms"], err)
	}

	// Runs one after another on one host are no distributed run: no skew
	// fields, no refusal.
	seq := [][]byte{windowed(t, raw[0], t0.Add(10*time.Second), 10*time.Second),
		windowed(t, raw[1], t0.Add(30*time.Second), 10*time.Second)}
	ms, err = Merge(parse(t, seq...), MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range ms {
		if bytes.Contains(mm.JSON, []byte("skew_")) {
			t.Fatalf("sequential runs carry skew: %s", mm.JSON)
		}
	}
}
