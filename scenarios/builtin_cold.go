package scenarios

import (
	"context"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// load_table.cold.latency is the first load of each table after the
// competitor reopened its catalog: what the warm load_table.latency saves
// by caching (for the embedded catalog, the bbolt pointer is mirrored at
// open, and the cold load reads and parses the metadata file).

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "load_table.cold.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 15,
			Doc: "the first load of each table after the catalog was reopened in-process (nothing cached)",
			Needs: []bench.Requirement{NeedDataset, NeedTables,
				Capability[competitors.Reopener]("competitor cannot be reopened in-process (a server's cache is its own)")},
		},
		Run: runCold,
	})
}

// runCold reopens the catalog, then loads distinct tables once each, timed,
// reopening again whenever every table has been loaded, until
// Opts.LatencyOps loads are recorded. There is no warm-up: it would warm
// what is measured. Afterwards every table is loaded once, untimed, so the
// scenarios that follow find the catalog as warm as before.
func runCold(ctx context.Context, env *Env) (Outcome, error) {
	re, _ := competitors.As[competitors.Reopener](env.Competitor)
	tables := env.Dataset.Tables
	order := permutation(len(tables))
	rec := results.NewRecorder()
	var eh errHolder
	var elapsed time.Duration
	var counted results.CounterDelta
	var countedOps int64
	reopens := 0
	for done := 0; done < env.Opts.LatencyOps && ctx.Err() == nil; {
		if err := re.Reopen(ctx); err != nil {
			return Outcome{}, err
		}
		reopens++
		cat := env.Competitor.Catalog()
		n := min(len(tables), env.Opts.LatencyOps-done)
		c0 := results.SnapshotFrom(ctx)
		start := time.Now()
		for _, k := range order[:n] {
			if ctx.Err() != nil {
				break
			}
			t0 := time.Now()
			_, err := cat.LoadTable(ctx, tables[k])
			d := time.Since(t0)
			countedOps++
			if err != nil {
				rec.Error()
				eh.set(err)
				continue
			}
			rec.Record(d)
		}
		elapsed += time.Since(start)
		counted.Add(c0, results.SnapshotFrom(ctx)) // the reopen is not counted
		done += n
	}
	cat := env.Competitor.Catalog()
	for _, id := range tables {
		if ctx.Err() != nil {
			break
		}
		_, _ = cat.LoadTable(ctx, id) // re-warm; failures were measured above
	}
	return Outcome{M: Measurement{Rec: rec, Elapsed: elapsed, FirstErr: eh.err, Counters: counted, CountedOps: countedOps},
		Params: map[string]any{"cache": "cold", "reopens": reopens}}, nil
}

// permutation returns 0..n-1 in a fixed pseudo-random order, so every
// competitor loads the same tables in the same order.
func permutation(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r := fixedRand()
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}
