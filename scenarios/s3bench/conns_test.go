package s3bench_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// manyConns is a c64 configuration with a closed loop and two open-loop
// rates: a fixed one and a percentage of net/http's closed-loop maximum.
func manyConns(endpoint, name, access, secret string) s3bench.Config {
	return s3bench.Config{
		S3:           s3.Config{Endpoint: endpoint, Bucket: "katbench-test", AccessKey: access, SecretKey: secret, Region: "us-east-1"},
		EndpointName: name,
		Ops:          []s3bench.Op{s3bench.Head, s3bench.Range},
		Concurrency:  []int{64},
		Iterations:   256,
		Rounds:       2,
		Warmup:       128,
		Rates:        []s3bench.Rate{{OpsSec: 200}, {Pct: 25}},
		Duration:     time.Second,
	}
}

// checkManyConns asserts the lines of a manyConns run: per transport and
// op, one closed line with every iteration done and one open line per
// rate, each open one with operations, no errors, every issued operation
// completed at the offered rate the config asked (the percentage taken of
// net/http's closed line in the same cell), and resource facts present.
func checkManyConns(t *testing.T, recs []results.Record, cfg s3bench.Config) {
	t.Helper()
	closed := map[[2]string]results.Record{} // (target, closed scenario)
	for _, r := range recs {
		if r.Loop == results.Closed {
			closed[[2]string{r.Target, r.Scenario}] = r
		}
	}
	want := 0
	for _, target := range []string{"http", "uring"} {
		for _, op := range cfg.Ops {
			base := s3bench.Scenario(op, 4<<10, 64)
			c, ok := closed[[2]string{target, base}]
			if !ok {
				t.Errorf("no closed line for %s %s", target, base)
				continue
			}
			want++
			if c.Ops != int64(cfg.Iterations) || c.Errors != 0 || c.Threads != 64 || c.Params["pool_size"] != 64 {
				t.Errorf("%s %s: ops %d errors %d (%q) threads %d pool %v", target, base, c.Ops, c.Errors, c.FirstError, c.Threads, c.Params["pool_size"])
			}
			checkResources(t, c)
			for _, rate := range cfg.Rates {
				want++
				name := s3bench.OpenScenario(op, 4<<10, 64, rate)
				i := slices.IndexFunc(recs, func(r results.Record) bool { return r.Target == target && r.Scenario == name })
				if i < 0 {
					t.Errorf("no open line for %s %s", target, name)
					continue
				}
				r := recs[i]
				offered := rate.OpsSec
				if rate.Pct > 0 {
					offered = closed[[2]string{"http", base}].OpsSec * rate.Pct / 100
				}
				p := r.Params
				issued, _ := p["issued"].(int64)
				completed, _ := p["completed"].(int64)
				achieved, _ := r.MeasureValue("achieved_rate")
				if r.Loop != results.Open || r.Ops <= 0 || r.Errors != 0 || r.Ops != completed || issued != completed {
					t.Errorf("%s %s: loop %q ops %d errors %d (%q) issued %d completed %d", target, name, r.Loop, r.Ops, r.Errors, r.FirstError, issued, completed)
				}
				if got, _ := p["rate"].(float64); math.Abs(got-offered) > 1e-9*offered || p["rate_spec"] != rate.String() {
					t.Errorf("%s %s: rate %v (%v), want %v offered", target, name, p["rate"], p["rate_spec"], offered)
				}
				// The line's achieved rate is what the pacer completed over
				// the measured time, and every due operation was issued.
				if want := float64(completed) / r.DurationS; math.Abs(achieved-want) > 1e-6*want || math.Abs(r.OpsSec-want) > 1e-6*want {
					t.Errorf("%s %s: achieved_rate %v ops_sec %v, want %v", target, name, achieved, r.OpsSec, want)
				}
				if per, ok := p["round_duration_s"].(float64); !ok || issued != int64(cfg.Rounds)*max(int64(per*offered), 1) {
					t.Errorf("%s %s: %d issued over %d rounds of %v s at %v/s", target, name, issued, cfg.Rounds, p["round_duration_s"], offered)
				}
				if cpu, _ := r.MeasureValue("cpu_us_per_op"); cpu <= 0 {
					t.Errorf("%s %s: cpu_us_per_op %v", target, name, r.Measures["cpu_us_per_op"])
				}
				if r.P999US < r.P99US || r.P99US < r.P50US || r.P50US <= 0 {
					t.Errorf("%s %s: p50 %v p99 %v p999 %v", target, name, r.P50US, r.P99US, r.P999US)
				}
				checkResources(t, r)
			}
		}
	}
	if len(recs) != want {
		t.Errorf("%d lines, want %d", len(recs), want)
	}
}

// checkResources asserts the resource facts a line carries: every one
// measured and positive, rings and ring mappings on io_uring lines.
func checkResources(t *testing.T, r results.Record) {
	t.Helper()
	res := r.Resources
	if res == nil || res.Threads == nil || res.FDs == nil || res.Rings == nil || res.RingFDs == nil || res.RingMapMiB == nil || res.VMSizeMiB == nil {
		t.Errorf("%s %s: resources %+v, want every field", r.Target, r.Scenario, res)
		return
	}
	// The descriptors are sampled after the warm-up, which may have reused
	// a connection before every worker dialled its own (under -race on a
	// busy machine, c64 warmed up on 45 descriptors): at least one socket
	// beside the rings' files, not one per worker.
	if *res.Threads <= 0 || *res.FDs <= *res.RingFDs || *res.VMSizeMiB <= 0 || res.Scope == "" {
		t.Errorf("%s %s: threads %d fds %d vm %v MiB scope %q", r.Target, r.Scenario, *res.Threads, *res.FDs, *res.VMSizeMiB, res.Scope)
	}
	if r.Target == "uring" && (*res.Rings <= 0 || *res.RingFDs < *res.Rings || *res.RingMapMiB <= 0) {
		t.Errorf("%s %s: rings %d (%d fds), ring mappings %v MiB", r.Target, r.Scenario, *res.Rings, *res.RingFDs, *res.RingMapMiB)
	}
}

// TestManyConnsControl: c64, closed and open loop, HEAD and ranged GET,
// both transports, against the in-process control store.
func TestManyConnsControl(t *testing.T) {
	requireUring(t)
	ctl := startControl(t)
	cfg := manyConns(ctl.URL(), "control", "k", "s")
	cfg.StoreInProcess = true
	var coll results.Collector
	if err := s3bench.Run(context.Background(), cfg, &coll); err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkManyConns(t, coll.Snapshot(), cfg)
}

// TestManyConnsVersitygw: the same against a real versitygw.
func TestManyConnsVersitygw(t *testing.T) {
	requireUring(t)
	env := testenv.Versitygw(t)
	cfg := manyConns(env.Endpoint, "", env.AccessKey, env.SecretKey)
	var coll results.Collector
	if err := s3bench.Run(context.Background(), cfg, &coll); err != nil {
		t.Fatalf("Run: %v", err)
	}
	recs := coll.Snapshot()
	checkManyConns(t, recs, cfg)
	for _, r := range recs {
		if !strings.HasPrefix(r.Params["cpu_scope"].(string), "process: the client") {
			t.Errorf("%s %s: cpu_scope %v", r.Target, r.Scenario, r.Params["cpu_scope"])
		}
	}
}

// TestRangeReadsAreSeeded: with the same seed, both transports read
// verified ranges (each one compared with the object), and the line says
// the seed and the object's size.
func TestRangeReadsAreSeeded(t *testing.T) {
	ctl := startControl(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	cfg.Ops, cfg.Concurrency, cfg.Seed = []s3bench.Op{s3bench.Range}, []int{2}, 42
	cfg.Transports = nil
	var coll results.Collector
	if err := s3bench.Run(context.Background(), cfg, &coll); err != nil {
		t.Fatalf("Run: %v", err)
	}
	recs := coll.Snapshot()
	if len(recs) == 0 {
		t.Fatal("no lines")
	}
	for _, r := range recs {
		if r.Scenario != "s3.range.8KiB.c2" || r.Ops != int64(cfg.Iterations) || r.Errors != 0 || *r.WarmupErrors != 0 {
			t.Errorf("%s %s: ops %d errors %d (%q)", r.Target, r.Scenario, r.Ops, r.Errors, r.FirstError)
		}
		if r.Params["range_seed"] != int64(42) || r.Params["object_bytes"] != int64(s3bench.RangeObjectSize) || r.Params["size_bytes"] != int64(s3bench.RangeSize) {
			t.Errorf("%s: params %v", r.Target, r.Params)
		}
	}
}

func TestRatesAndConcurrencyParse(t *testing.T) {
	got, err := s3bench.ParseRates("2000, 25%,50%")
	if err != nil || !slices.Equal(got, []s3bench.Rate{{OpsSec: 2000}, {Pct: 25}, {Pct: 50}}) {
		t.Fatalf("ParseRates = %v, %v", got, err)
	}
	for _, bad := range []string{"", "-1", "0", "x", "0%", "-5%", "5x%", "2000%", "1e9"} {
		if _, err := s3bench.ParseRates(bad); !errors.Is(err, s3bench.ErrBadConfig) {
			t.Errorf("ParseRates(%q) = %v, want ErrBadConfig", bad, err)
		}
	}
	if err := s3bench.CheckRates([]s3bench.Rate{{Pct: 50}}, []transport.Kind{"uring"}); !errors.Is(err, s3bench.ErrBadConfig) {
		t.Errorf("a percentage without http: %v", err)
	}
	if err := s3bench.CheckConcurrency([]int{1, 256}, false); err != nil {
		t.Errorf("CheckConcurrency(256) = %v", err)
	}
	if err := s3bench.CheckConcurrency([]int{257}, false); !errors.Is(err, s3bench.ErrBadConfig) {
		t.Errorf("CheckConcurrency(257) without the opt-in = %v", err)
	}
	if err := s3bench.CheckConcurrency([]int{1024}, true); err != nil {
		t.Errorf("CheckConcurrency(1024, allowed) = %v", err)
	}
	if err := s3bench.CheckConcurrency([]int{1025}, true); !errors.Is(err, s3bench.ErrBadConfig) {
		t.Errorf("CheckConcurrency(1025, allowed) = %v", err)
	}
	cfg := s3bench.Config{S3: s3.Config{Endpoint: "http://127.0.0.1:1", Bucket: "b", AccessKey: "k", SecretKey: "s"}, Concurrency: []int{300}}
	if err := s3bench.Run(context.Background(), cfg, &results.Collector{}); !errors.Is(err, s3bench.ErrBadConfig) {
		t.Errorf("Run at c300 without the opt-in = %v", err)
	}
}
