package pacer_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/pacer"
)

// BenchmarkOpenLoop50kEmbeddedControl is the pacer's target: 50,000 ops/s
// against the embedded catalog's control (a no-op call in-process) held
// within 1 %. Reported: achieved/requested, and the scheduling error
// (actual − intended start) p50 and p99.
func BenchmarkOpenLoop50kEmbeddedControl(b *testing.B) { benchOpenLoop(b, 50_000) }

// BenchmarkOpenLoop3kEmbeddedControl is the same at 3,000 ops/s, where the
// gaps between due times (333 µs) are long enough for the pacer to sleep:
// its scheduling error is how late it wakes.
func BenchmarkOpenLoop3kEmbeddedControl(b *testing.B) { benchOpenLoop(b, 3_000) }

func benchOpenLoop(b *testing.B, rate float64) {
	ctx := context.Background()
	f, err := competitors.Lookup("embedded")
	if err != nil {
		b.Fatal(err)
	}
	c, err := f.New(ctx, competitors.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctl, ok := competitors.As[competitors.Controller](c)
	if !ok {
		b.Fatal("embedded has no control")
	}
	var worst float64 = 1
	var last pacer.Result
	for b.Loop() {
		res, err := pacer.Run(ctx, pacer.Config{Rate: rate, Duration: time.Second, Warmup: 200 * time.Millisecond, Workers: 4},
			func(ctx context.Context, _ int) error { return ctl.Control(ctx) })
		if err != nil {
			b.Fatal(err)
		}
		if r := res.Achieved() / rate; r < worst || worst == 1 {
			worst = r
		}
		last = res
	}
	b.ReportMetric(worst, "achieved/requested")
	b.ReportMetric(float64(last.Sched.Percentile(50))/1e3, "sched-p50-µs")
	b.ReportMetric(float64(last.Sched.Percentile(99))/1e3, "sched-p99-µs")
	b.ReportMetric(float64(last.Rec.Percentile(99))/1e3, "latency-p99-µs")
}

// BenchmarkOpenLoop100kClassesEmbeddedControl is a mix's path through the
// pacer at 100,000 ops/s: three classes recorded apart (as a mix's
// operations are), 16 workers, against the embedded catalog's control.
// Reported as BenchmarkOpenLoop50kEmbeddedControl is.
func BenchmarkOpenLoop100kClassesEmbeddedControl(b *testing.B) {
	ctx := context.Background()
	f, err := competitors.Lookup("embedded")
	if err != nil {
		b.Fatal(err)
	}
	c, err := f.New(ctx, competitors.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctl, _ := competitors.As[competitors.Controller](c)
	const rate = 100_000
	var ratios []float64
	var last pacer.Result
	for b.Loop() {
		var n [16]int
		res, err := pacer.RunClasses(ctx, pacer.Config{Rate: rate, Duration: time.Second, Warmup: 200 * time.Millisecond, Workers: 16, Classes: 3},
			func(ctx context.Context, w int) (int, error) { n[w]++; return n[w] % 3, ctl.Control(ctx) })
		if err != nil {
			b.Fatal(err)
		}
		ratios = append(ratios, res.Achieved()/rate)
		last = res
	}
	sort.Float64s(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "achieved/requested-median")
	b.ReportMetric(ratios[0], "achieved/requested-min")
	b.ReportMetric(float64(last.Sched.Percentile(99))/1e3, "sched-p99-µs")
}
