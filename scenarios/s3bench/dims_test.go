package s3bench_test

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// TestLinesCarryTheirDims runs every registered S3 operation on the
// in-process control store, closed and open loop (an absolute rate and a
// percentage one), and checks that each line carries exactly the
// dimensions its scenario declares with its cell's values: size and
// concurrency where declared, the offered rate (and a percentage rate's
// percentage) on open-loop lines only. The lines also decode back to the
// same dims.
func TestLinesCarryTheirDims(t *testing.T) {
	ctl := startControl(t)
	cfg := s3bench.Config{
		S3:           s3.Config{Endpoint: ctl.URL(), Bucket: "katbench-dims", AccessKey: "k", SecretKey: "s", Region: "us-east-1"},
		EndpointName: "control", StoreInProcess: true,
		Transports:  []transport.Kind{transport.Baseline()},
		Sizes:       []int64{1 << 10, 4 << 10},
		Concurrency: []int{1, 2},
		Iterations:  4, Rounds: 1, Warmup: -1,
		Rates:    []s3bench.Rate{{OpsSec: 40}, {Pct: 50}},
		Duration: 50 * time.Millisecond,
	}
	registered := bench.BenchScenarios(bench.BenchTransport)
	if len(registered) == 0 {
		t.Fatal("no S3 scenario registered")
	}
	for _, sc := range registered {
		op, err := s3bench.ParseOp(strings.TrimPrefix(sc.Name, "s3."))
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		cfg.Ops = append(cfg.Ops, op)
	}
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run: %v", err)
	}
	byName := map[string]results.Record{}
	for _, r := range got.Records {
		byName[r.Scenario] = r
	}

	// want is the dims a line of sc's level carries: each dimension sc
	// declares, valued from the level, a closed loop's rate absent.
	want := func(sc bench.Scenario, level bench.Level) results.Dims {
		d := results.Dims{}
		for _, dim := range sc.Dims {
			if v, ok := level[dim]; ok {
				d[string(dim)] = v
			}
			if v, ok := level[bench.DimRatePct]; ok && dim == bench.DimRate {
				d[results.DimRatePct] = v
			}
		}
		return d
	}
	seen := 0
	// check checks the line of the named cell against sc's dims at level.
	check := func(name string, sc bench.Scenario, level bench.Level) (results.Record, bool) {
		r, ok := byName[name]
		if !ok {
			t.Errorf("no line for %s", name)
			return r, false
		}
		seen++
		checkDims(t, r, want(sc, level))
		return r, true
	}
	for _, sc := range registered {
		op, _ := s3bench.ParseOp(strings.TrimPrefix(sc.Name, "s3."))
		sizes := []int64{0} // the op's own fixed size
		if slices.Contains(sc.Dims, bench.DimSize) {
			sizes = cfg.Sizes
		}
		for _, size := range sizes {
			for _, conc := range cfg.Concurrency {
				level := bench.Level{bench.DimSize: float64(size), bench.DimConcurrency: float64(conc)}
				closed, ok := check(s3bench.Scenario(op, size, conc), sc, level)
				if !ok {
					continue
				}
				for _, rate := range cfg.Rates {
					open := maps.Clone(level)
					open[bench.DimRate] = rate.OpsSec
					if rate.Pct > 0 {
						open[bench.DimRate] = closed.OpsSec * rate.Pct / 100
						open[bench.DimRatePct] = rate.Pct
					}
					check(s3bench.OpenScenario(op, size, conc, rate), sc, open)
				}
			}
		}
	}
	if seen != len(got.Records) {
		t.Errorf("%d lines checked of %d written", seen, len(got.Records))
	}
}

// checkDims asserts that r carries exactly want as dims, also after a
// write and a Decode.
func checkDims(t *testing.T, r results.Record, want results.Dims) {
	t.Helper()
	if !dimsEqual(r.Dims, want) {
		t.Errorf("%s (%s loop): dims %v, want %v", r.Scenario, r.Loop, r.Dims, want)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := results.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !dimsEqual(back.Dims, want) {
		t.Errorf("%s: dims after a round trip %v, want %v", r.Scenario, back.Dims, want)
	}
}

// dimsEqual compares dims to within floating-point noise (a percentage
// rate is computed from a measured ops/s).
func dimsEqual(a, b results.Dims) bool {
	return maps.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), 1) })
}
