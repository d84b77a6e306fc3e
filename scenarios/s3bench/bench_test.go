package s3bench_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	"github.com/nordisk/katbench/transport/uring"
)

func startControl(t *testing.T) *s3.Control {
	t.Helper()
	c, err := s3.StartControl()
	if err != nil {
		t.Fatalf("StartControl: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// tiny is a configuration small enough for a unit test that still covers
// every op, two sizes, two concurrency levels and two rounds.
func tiny(endpoint, name, access, secret string) s3bench.Config {
	return s3bench.Config{
		S3:           s3.Config{Endpoint: endpoint, Bucket: "katbench-test", AccessKey: access, SecretKey: secret, Region: "us-east-1"},
		EndpointName: name,
		Sizes:        []int64{1 << 10, 64 << 10},
		Concurrency:  []int{1, 3},
		Iterations:   12,
		Rounds:       2,
		Warmup:       2,
	}
}

var tinyScenarios = []string{
	"s3.head.c1", "s3.head.c3",
	"s3.get.1KiB.c1", "s3.get.1KiB.c3", "s3.get.64KiB.c1", "s3.get.64KiB.c3",
	"s3.put.1KiB.c1", "s3.put.1KiB.c3", "s3.put.64KiB.c1", "s3.put.64KiB.c3",
}

// requireUring skips (fails in CI) when io_uring cannot run here, so the
// two-transport tests never pass by measuring net/http twice.
func requireUring(t *testing.T) {
	t.Helper()
	_, used, fallback, err := transport.New("uring", "http://127.0.0.1:1", transport.Options{PoolSize: 1})
	if err == nil && used != "uring" {
		err = errors.New(fallback)
	}
	testenv.Need(t, "io_uring transport", err)
}

// checkLines asserts one measured line per (transport, scenario), each with
// every iteration done, no errors and a histogram that decodes to the ops.
func checkLines(t *testing.T, recs []results.Record, cfg s3bench.Config, targets []string, endpoint string) {
	t.Helper()
	seen := map[[2]string]bool{}
	for _, r := range recs {
		key := [2]string{r.Target, r.Scenario}
		if seen[key] {
			t.Errorf("duplicate line %v", key)
		}
		seen[key] = true
		if r.Skipped != "" {
			t.Errorf("%v skipped: %s", key, r.Skipped)
			continue
		}
		if r.Ops != int64(cfg.Iterations) || r.Errors != 0 {
			t.Errorf("%v: ops %d errors %d (first error %q), want %d and 0", key, r.Ops, r.Errors, r.FirstError, cfg.Iterations)
		}
		if r.Loop != results.Closed || r.Transport != r.Target || r.OpsSec <= 0 || r.P50US <= 0 || r.P99US < r.P50US {
			t.Errorf("%v: bad numbers or fields: loop %q transport %q ops/s %v p50 %v p99 %v", key, r.Loop, r.Transport, r.OpsSec, r.P50US, r.P99US)
		}
		h, err := results.DecodeHist(r.Hist)
		if err != nil {
			t.Errorf("%v: hist: %v", key, err)
		} else if h.Count() != r.Ops {
			t.Errorf("%v: hist holds %d values, line says %d ops", key, h.Count(), r.Ops)
		}
		if r.Params["endpoint"] != endpoint || r.Params["transport"] != r.Target || r.Params["concurrency"] != r.Threads {
			t.Errorf("%v: params %v", key, r.Params)
		}
		// CPU per operation: measured (positive) every round, its scope
		// named, and the whole equal to the rounds' op-weighted mean.
		cpu, _ := r.MeasureValue("cpu_us_per_op")
		rounds := r.MeasureRounds("cpu_us_per_op")
		scope, _ := r.Params["cpu_scope"].(string)
		if cpu <= 0 || len(rounds) != cfg.Rounds || !strings.HasPrefix(scope, "process: ") {
			t.Errorf("%v: cpu_us_per_op %v, rounds %v, scope %q; want > 0, %d rounds, a scope", key, cpu, rounds, scope, cfg.Rounds)
		} else {
			lo, hi := slices.Min(rounds), slices.Max(rounds)
			if lo <= 0 || cpu < lo*0.999 || cpu > hi*1.001 {
				t.Errorf("%v: cpu_us_per_op %v outside its rounds' range %v", key, cpu, rounds)
			}
		}
		if !strings.HasPrefix(r.Scenario, "s3.head.") {
			if _, ok := r.MeasureValue("mib_s"); !ok {
				t.Errorf("%v: no mib_s in measures %v", key, r.Measures)
			}
		}
	}
	for _, target := range targets {
		for _, s := range tinyScenarios {
			if !seen[[2]string{target, s}] {
				t.Errorf("no line for %s %s", target, s)
			}
		}
	}
	if want := len(targets) * len(tinyScenarios); len(recs) != want {
		t.Errorf("%d lines, want %d", len(recs), want)
	}
}

// checkWait asserts that every uring line names the wait its requests
// used (WaitAuto's per-host choice, with why), and no http line has one.
func checkWait(t *testing.T, recs []results.Record, want string) {
	t.Helper()
	if os.Getenv(uring.WaitEnv) != "" {
		want = os.Getenv(uring.WaitEnv) // a forced mode is named bare
	}
	for _, r := range recs {
		w, _ := r.Params["uring_wait"].(string)
		if r.Target == "uring" && !strings.HasPrefix(w, want) {
			t.Errorf("%s %s: uring_wait %q, want %q…", r.Target, r.Scenario, w, want)
		}
		if r.Target == "http" && w != "" {
			t.Errorf("%s %s: uring_wait %q on a net/http line", r.Target, r.Scenario, w)
		}
	}
}

// objectsLeft lists what the bench left in its bucket.
func objectsLeft(t *testing.T, cfg s3.Config) []string {
	t.Helper()
	cfg.Transport = "http"
	c, _, err := s3.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for obj := range c.ListObjects(context.Background(), cfg.Bucket, minio.ListObjectsOptions{Prefix: "katbench-transport/", Recursive: true}) {
		if obj.Err != nil {
			t.Fatalf("list: %v", obj.Err)
		}
		keys = append(keys, obj.Key)
	}
	return keys
}

func TestRunControlBothTransports(t *testing.T) {
	requireUring(t)
	ctl := startControl(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLines(t, got.Records, cfg, []string{"http", "uring"}, "control")
	checkWait(t, got.Records, "poll: the server listens in this process")
	for _, r := range got.Records {
		if r.TransportFallback != "" {
			t.Errorf("%s %s: unexpected fallback %q", r.Target, r.Scenario, r.TransportFallback)
		}
	}
	if left := objectsLeft(t, cfg.S3); len(left) != 0 {
		t.Errorf("objects left after the run: %v", left)
	}
}

func TestRunVersitygw(t *testing.T) {
	requireUring(t)
	st := testenv.Versitygw(t)
	cfg := tiny(st.Endpoint, "", st.AccessKey, st.SecretKey)
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run: %v", err)
	}
	host := strings.TrimPrefix(st.Endpoint, "http://")
	checkLines(t, got.Records, cfg, []string{"http", "uring"}, host)
	want := "hold: the server is in another process"
	if runtime.GOMAXPROCS(0) == 1 {
		want = "poll: GOMAXPROCS is 1"
	}
	checkWait(t, got.Records, want)
	if left := objectsLeft(t, cfg.S3); len(left) != 0 {
		t.Errorf("objects left after the run: %v", left)
	}
}

// TestRunFallback: with io_uring setup forced to fail, every line says what
// really ran (http) and why (transport_fallback "uring: …"), and net/http is
// measured once, not twice under two names.
func TestRunFallback(t *testing.T) {
	ctl := startControl(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	cfg.S3.TransportSettings = transport.Settings{"uring.force-fail": "1"}
	var warn bytes.Buffer
	cfg.Log = &warn
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLines(t, got.Records, cfg, []string{"http"}, "control")
	for _, r := range got.Records {
		if r.Target != "http" || r.Transport != "http" || !strings.HasPrefix(r.TransportFallback, "uring: ") {
			t.Errorf("%s: target %q transport %q fallback %q; want http, http, \"uring: …\"", r.Scenario, r.Target, r.Transport, r.TransportFallback)
		}
	}
	if n := strings.Count(warn.String(), "\n"); n != 1 || !strings.Contains(warn.String(), "uring") {
		t.Errorf("warning output %q, want exactly one line about uring", warn.String())
	}
}

// TestRunCancelCleansUp: cancelling mid-run stops it with the context's
// error, and the objects are still removed.
func TestRunCancelCleansUp(t *testing.T) {
	ctl := startControl(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	cfg.Transports = []transport.Kind{"http"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := 0
	sink := results.SinkFunc(func(results.Record) error {
		lines++
		if lines == 3 {
			cancel()
		}
		return nil
	})
	err := s3bench.Run(ctx, cfg, sink)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	if lines >= len(tinyScenarios) {
		t.Errorf("%d lines written, want the run to stop early", lines)
	}
	if left := objectsLeft(t, cfg.S3); len(left) != 0 {
		t.Errorf("objects left after a cancelled run: %v", left)
	}
}

func TestRunBadConfigWritesNothing(t *testing.T) {
	ctl := startControl(t)
	for _, tc := range []struct {
		name string
		edit func(*s3bench.Config)
	}{
		{"bad endpoint", func(c *s3bench.Config) { c.S3.Endpoint = "127.0.0.1:9000"; c.EndpointName = "" }},
		{"negative iterations", func(c *s3bench.Config) { c.Iterations = -1 }},
		{"zero concurrency", func(c *s3bench.Config) { c.Concurrency = []int{0} }},
		{"huge size", func(c *s3bench.Config) { c.Sizes = []int64{1 << 40} }},
		{"bad op", func(c *s3bench.Config) { c.Ops = []s3bench.Op{"copy"} }},
		{"no keys", func(c *s3bench.Config) { c.S3.AccessKey = "" }},
		{"bad transport", func(c *s3bench.Config) { c.Transports = []transport.Kind{"pigeon"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tiny(ctl.URL(), "control", "k", "s")
			tc.edit(&cfg)
			var got results.Collector
			if err := s3bench.Run(context.Background(), cfg, &got); err == nil {
				t.Fatal("Run: no error")
			}
			if len(got.Records) != 0 {
				t.Fatalf("%d lines written for a bad config", len(got.Records))
			}
		})
	}
}

func TestParseAndFormat(t *testing.T) {
	sizes, err := s3bench.ParseSizes("4KiB, 64kib,1MiB,512B,1000")
	if err != nil || !slices.Equal(sizes, []int64{4096, 65536, 1 << 20, 512, 1000}) {
		t.Fatalf("ParseSizes = %v, %v", sizes, err)
	}
	for _, bad := range []string{"", "4KB", "-1", "x", "1TiB", "300MiB"} {
		if _, err := s3bench.ParseSizes(bad); !errors.Is(err, s3bench.ErrBadSize) {
			t.Errorf("ParseSizes(%q) = %v, want ErrBadSize", bad, err)
		}
	}
	for n, want := range map[int64]string{4096: "4KiB", 1 << 20: "1MiB", 1536: "1536B", 0: "0B", 1 << 30: "1GiB", 3 << 20: "3MiB"} {
		if got := s3bench.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	if ops, err := s3bench.ParseOps("HEAD,get, put"); err != nil || !slices.Equal(ops, []s3bench.Op{"head", "get", "put"}) {
		t.Fatalf("ParseOps = %v, %v", ops, err)
	}
	if _, err := s3bench.ParseOps("head,copy"); !errors.Is(err, s3bench.ErrBadOp) {
		t.Fatalf("ParseOps(copy) = %v", err)
	}
	if c, err := s3bench.ParseConcurrency("1,8"); err != nil || !slices.Equal(c, []int{1, 8}) {
		t.Fatalf("ParseConcurrency = %v, %v", c, err)
	}
	for _, bad := range []string{"0", "a", "", "1,-2"} {
		if _, err := s3bench.ParseConcurrency(bad); err == nil {
			t.Errorf("ParseConcurrency(%q): no error", bad)
		}
	}
	if got := s3bench.Scenario(s3bench.Get, 4096, 8); got != "s3.get.4KiB.c8" {
		t.Errorf("Scenario = %q", got)
	}
	if got := s3bench.Scenario(s3bench.Head, 4096, 1); got != "s3.head.c1" {
		t.Errorf("Scenario = %q", got)
	}
}

// TestRunLeavesNoOpenFiles: after Run returns and the control is closed, the
// process holds no more file descriptors than before (connections and
// io_uring rings closed).
func TestRunLeavesNoOpenFiles(t *testing.T) {
	requireUring(t)
	ctl, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	if err := s3bench.Run(context.Background(), cfg, &results.Collector{}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := ctl.Close(); err != nil {
		t.Fatal(err)
	}
	if after := openFDs(t); after > before {
		t.Fatalf("%d open fds after the run, %d before", after, before)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		testenv.Need(t, "/proc/self/fd", err)
	}
	return len(ents)
}
