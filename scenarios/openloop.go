package scenarios

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/internal/results"
)

// The open-loop read scenarios: the control round trip and the two catalog
// reads, issued at Options.Rate (katbench run --rate N). Their latencies are
// measured from each operation's intended start, so they are latency under
// load, comparable with the closed-loop service times of the same reads.

// NeedRate: an open-loop scenario needs a requested rate.
var NeedRate = need("open loop: no --rate given", func(env *Env) bool { return env.Opts.Rate > 0 }, nil)

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "open.control", Kind: bench.KindOpen, Metric: results.P50, Order: 200,
			Doc:   "the control round trip at --rate ops/s, latency from the intended start",
			Needs: []bench.Requirement{NeedRate, Capability[competitors.Controller]("competitor has no control round trip")},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			ctl, _ := competitors.As[competitors.Controller](env.Competitor)
			return openLoop(ctx, env, controlOp(ctl))
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "open.load_table", Kind: bench.KindOpen, Metric: results.P50, Order: 210,
			Doc:   "warm load_table at --rate ops/s, latency from the intended start",
			Needs: []bench.Requirement{NeedRate, NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return openLoop(ctx, env, loadOp(env.Competitor, env.Dataset, env.Opts.LatencyOps))
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "open.table_exists", Kind: bench.KindOpen, Metric: results.P50, Order: 220,
			Doc:   "existence checks (half hits) at --rate ops/s, latency from the intended start",
			Needs: []bench.Requirement{NeedRate, NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return openLoop(ctx, env, existsOp(env.Competitor, env.Dataset, env.Opts.LatencyOps))
		},
	})
}

// openLoop runs op at env.Opts.Rate for the throughput duration after the
// warm-up and says on the line what rate was asked, what was achieved, and
// whether the target kept up (≥ 95 %), with the pacer's own scheduling
// error.
func openLoop(ctx context.Context, env *Env, op Op) (Outcome, error) {
	o := env.Opts
	workers := o.OpenWorkers
	if workers < 1 {
		workers = 16
	}
	var seq atomic.Int64
	res, err := pacer.Run(ctx, pacer.Config{Rate: o.Rate, Duration: o.Duration, Warmup: o.Warmup, Workers: workers},
		func(ctx context.Context, w int) error { return op(ctx, w, int(seq.Add(1)-1)) })
	if err != nil && ctx.Err() == nil {
		return Outcome{}, fmt.Errorf("open loop: %w", err)
	}
	params, measures := openParams(res, o.Rate, workers)
	return Outcome{M: Measurement{Rec: res.Rec, Elapsed: res.Elapsed, FirstErr: res.FirstErr, WarmupErrors: res.WarmupErrors}, Params: params, Measures: measures}, nil
}
