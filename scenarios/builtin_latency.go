package scenarios

import (
	"context"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// The single-threaded read scenarios: the control round trip and the three
// catalog reads.

// ControlName is the control scenario: the floor of the competitor's path.
const ControlName = "control.latency"

// readLatency measures o.LatencyOps recorded operations of op after the
// warm-up.
func readLatency(ctx context.Context, o Options, op Op) Measurement {
	return Latency(ctx, o.Delay.wrap(op), o.Warmup, 10, 10*o.LatencyOps+1000, o.LatencyOps)
}

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: ControlName, Kind: bench.KindLatency, Metric: results.P50, Order: 0, Control: true, ReadsOnly: true,
			Doc:   "the floor of the path: GET /v1/config for REST, an empty RPC for gRPC, a no-op call in-process",
			Needs: []bench.Requirement{Capability[competitors.Controller]("competitor has no control round trip")},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			ctl, _ := competitors.As[competitors.Controller](env.Competitor)
			return Outcome{M: readLatency(ctx, env.Opts, controlOp(ctl))}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "load_table.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 10, ReadsOnly: true,
			Doc:   "warm load_table: tables already loaded since the catalog opened (a cache hit where the competitor caches)",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return Outcome{M: readLatency(ctx, env.Opts, loadOp(env.Competitor, env.Dataset, env.Opts.LatencyOps)),
				Params: map[string]any{"cache": "warm"}}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "resolve_metadata.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 20, ReadsOnly: true,
			Doc: "a table's current metadata without building a table",
			Needs: []bench.Requirement{NeedDataset, NeedTables,
				Capability[competitors.MetadataResolver]("competitor cannot resolve metadata without loading a table")},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			res, _ := competitors.As[competitors.MetadataResolver](env.Competitor)
			return Outcome{M: readLatency(ctx, env.Opts, resolveOp(res, env.Dataset, env.Opts.LatencyOps))}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "table_exists.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 30, ReadsOnly: true,
			Doc:   "existence checks, half hits and half misses; a wrong answer is an error",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			hit := 0.5
			if len(env.Dataset.Tables) == 0 {
				hit = 0
			}
			return Outcome{M: readLatency(ctx, env.Opts, existsOp(env.Competitor, env.Dataset, env.Opts.LatencyOps)),
				Params: map[string]any{"hit_ratio": hit}}, nil
		},
	})
}
