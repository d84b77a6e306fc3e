package scenarios

import (
	"context"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
)

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "load_table.throughput", Kind: bench.KindThroughput, Metric: results.OpsSec, Levels: true, Order: 40, ReadsOnly: true,
			Doc:   "warm load_table on N workers for --duration, one level per --threads value",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			o := env.Opts
			return Outcome{M: ThroughputAtLeast(ctx, o.Delay.wrap(loadOp(env.Competitor, env.Dataset, 1<<16)), env.Threads, min(o.Warmup, o.Duration), o.Duration, 1)}, nil
		},
	})
}
