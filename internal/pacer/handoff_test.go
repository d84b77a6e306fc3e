package pacer

import (
	"context"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// BenchmarkOpenLoopHandoff is what the pacer itself costs per operation at
// a rate where it sleeps between operations (3,500/s, 64 workers, an
// operation that does nothing): the process's CPU per operation and the
// latency from the intended start, which with nothing to do is the
// scheduler's lateness plus the hand-off to a worker. "yield" is the
// scheduler as built, "no-yield" without its yield before a pacing sleep.
// -count repeats each of them in turn; to alternate them, run the
// benchmark once per round (as docs/transport.md does).
func BenchmarkOpenLoopHandoff(b *testing.B) {
	for _, c := range []struct {
		name  string
		yield bool
	}{{"yield", true}, {"no-yield", false}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(y bool) { yieldBeforeSleep = y }(yieldBeforeSleep)
			yieldBeforeSleep = c.yield
			var cpu time.Duration
			var ops int64
			lat, sched := results.NewRecorder(), results.NewRecorder()
			for b.Loop() {
				c0, ok0 := results.ProcessCPU()
				res, err := Run(context.Background(), Config{Rate: 3500, Duration: 2 * time.Second, Warmup: 200 * time.Millisecond, Workers: 64},
					func(context.Context, int) error { return nil })
				c1, ok1 := results.ProcessCPU()
				if err != nil {
					b.Fatal(err)
				}
				if !ok0 || !ok1 {
					b.Skip("getrusage cannot say the process's CPU here")
				}
				cpu += c1 - c0
				ops += res.Completed
				lat.Merge(res.Rec)
				sched.Merge(res.Sched)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(ops), "cpu-µs/op")
			b.ReportMetric(float64(lat.Percentile(50))/1e3, "latency-p50-µs")
			b.ReportMetric(float64(lat.Percentile(99))/1e3, "latency-p99-µs")
			b.ReportMetric(float64(sched.Percentile(50))/1e3, "sched-p50-µs")
			b.ReportMetric(float64(sched.Percentile(99))/1e3, "sched-p99-µs")
		})
	}
}
