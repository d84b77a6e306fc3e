package scenarios_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/workload"
)

// BenchmarkMixOpenLoop100k offers 100,000 ops/s of a mix, open-loop, to
// the embedded catalog (no fsync, 200 tables): the harness's own ceiling.
// Reported per mix: achieved/offered (median and min over the
// iterations) and the pacer's scheduling error p99 of the last. reads is
// read-heavy's reads alone (load_table=80,table_exists=10): what the
// pacer and the mix's dispatch keep when the target is not the limit;
// read-heavy adds its 10 % commits, which the catalog serialises.
//
//	go test ./scenarios/ -run '^$' -bench MixOpenLoop100k -benchtime 3x -cpuprofile cpu.out
func BenchmarkMixOpenLoop100k(b *testing.B) {
	for _, c := range []struct{ name, mix string }{
		{"reads", "load_table=80,table_exists=10"},
		{"read-heavy", "read-heavy"},
	} {
		b.Run(c.name, func(b *testing.B) {
			f, err := competitors.Lookup("embedded")
			if err != nil {
				b.Fatal(err)
			}
			m, err := workload.ParseMix(c.mix)
			if err != nil {
				b.Fatal(err)
			}
			o := scenarios.Defaults(true)
			o.Namespace = "katbench_bench"
			o.Rate, o.OpenWorkers = 100_000, 16
			o.Duration, o.Warmup, o.ServerWarmup = 2*time.Second, 200*time.Millisecond, 0
			o.Workload = &workload.Workload{Mix: m, Seed: 1}
			var ratios []float64
			var sched float64
			for b.Loop() {
				var coll results.Collector
				r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
				tg := scenarios.CompetitorSetup{Factory: f, Config: competitors.Config{Dir: b.TempDir(), Durability: "none"}}
				if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{tg}); err != nil {
					b.Fatal(err)
				}
				for _, rec := range coll.Records {
					if rec.Kind != string(scenarios.KindMix) || rec.Scenario != "mix."+m.Name {
						continue
					}
					if rec.Errors > 0 {
						b.Fatalf("%d errors: %s", rec.Errors, rec.FirstError)
					}
					achieved, _ := rec.MeasureValue("achieved_rate")
					sched, _ = rec.Params["sched_p99_us"].(float64)
					ratios = append(ratios, achieved/o.Rate)
				}
			}
			if len(ratios) == 0 {
				b.Fatal("no mix line")
			}
			sort.Float64s(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "achieved/offered-median")
			b.ReportMetric(ratios[0], "achieved/offered-min")
			b.ReportMetric(sched, "sched-p99-µs")
		})
	}
}
