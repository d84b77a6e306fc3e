package scenarios

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// The flush sweep: create_table.throughput and commit_table.throughput at
// the sweep's thread levels on a fresh competitor per flush mode (see
// catalog.Flush), in Immediate durability. The file-system floor runs the
// same scenarios in the same modes, so every line has its floor beside it
// in the same run.

// NeedFlushModes: the competitor flushes its durable writes in a mode the
// client chooses (the embedded catalog and the floor, in immediate mode).
var NeedFlushModes = need("competitor has no flush modes to choose (not the embedded catalog or its floor, or not in immediate durability)",
	func(env *Env) bool {
		if _, ok := competitors.As[competitors.Flusher](env.Competitor); !ok {
			return false
		}
		d, ok := competitors.As[competitors.Durable](env.Competitor)
		return ok && d.DurabilityMode() == string(catalog.Immediate)
	}, nil)

func init() {
	for i, mode := range catalog.Flushes {
		for j, n := range SweepThreads {
			Register(Scenario{
				Scenario: bench.Scenario{
					Name: fmt.Sprintf("create_table.flush.%s.t%d", mode, n), Kind: bench.KindDurability, Metric: results.OpsSec,
					Threads: n, Order: 100 + 3*i + j, Sweep: true, Writes: true,
					Doc:   fmt.Sprintf("create_table.throughput.t%d on a fresh competitor flushing in mode %s (immediate durability)", n, mode),
					Needs: []bench.Requirement{NeedFlushModes},
				},
				Run: func(ctx context.Context, env *Env) (Outcome, error) {
					return inFlush(ctx, env, mode, fmt.Sprintf("create_t%d", n), func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error) {
						return Outcome{M: writeThroughput(ctx, env, createOp(c.Catalog(), ns, "flush", created))}, nil
					})
				},
			})
			Register(Scenario{
				Scenario: bench.Scenario{
					Name: fmt.Sprintf("commit_table.flush.%s.t%d", mode, n), Kind: bench.KindDurability, Metric: results.OpsSec,
					Threads: n, Order: 110 + 3*i + j, Sweep: true, Writes: true,
					Doc:   fmt.Sprintf("commit_table.throughput.t%d on a fresh competitor flushing in mode %s (immediate durability)", n, mode),
					Needs: []bench.Requirement{NeedFlushModes},
				},
				Run: func(ctx context.Context, env *Env) (Outcome, error) {
					return inFlush(ctx, env, mode, fmt.Sprintf("commit_t%d", n), func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error) {
						return runOwnCommits(ctx, c.Catalog(), ns, "flush", created,
							func(op Op) Measurement { return writeThroughput(ctx, env, op) }, env.Threads)
					})
				},
			})
		}
	}
}

// inFlush runs measure on a fresh competitor built from the same factory,
// in Immediate durability and flush mode, in a directory and namespace of
// its own, and closes it and removes its directory before returning. The outcome's params get the mode
// and the mean batch the competitor's group commit formed (warm-up
// included), when it counts them.
func inFlush(ctx context.Context, env *Env, mode catalog.Flush, tag string,
	measure func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error),
) (_ Outcome, err error) {
	cfg := env.Target.Config
	cfg.Durability = string(catalog.Immediate)
	cfg.Flush = string(mode)
	cfg.Dir = filepath.Join(env.Target.Config.Dir, fmt.Sprintf("flush-%s-%s-r%d", tag, mode, env.Round))
	ns := table.Identifier{fmt.Sprintf("%s_flush_%s_%s_r%d", env.Opts.Namespace, tag, mode, env.Round)}
	c, err := startFresh(ctx, env, cfg, ns, fmt.Sprintf("flush sweep %s", mode), func(c competitors.Competitor) bool {
		f, ok := competitors.As[competitors.Flusher](c)
		return ok && f.FlushMode() == mode
	}, fmt.Sprintf("a competitor asked to flush in mode %s does not", mode))
	if err != nil {
		return Outcome{}, err
	}
	defer func() { err = errors.Join(err, closeFresh(c, cfg.Dir)) }()
	var created createdSet
	bc := countBatches(c)
	out, err := measure(ctx, c, ns, created.add)
	if err != nil {
		return Outcome{}, err
	}
	out.Params = bc.addTo(out.Params)
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	out.Params["durability"] = string(catalog.Immediate)
	out.Params["flush"] = string(mode)
	return out, nil
}

// batchCount counts the batches a competitor's group commit forms over
// a measurement, when it counts them (competitors.Batcher).
type batchCount struct {
	b              competitors.Batcher
	counts         bool
	batches0, ops0 uint64
}

// countBatches starts counting c's batches.
func countBatches(c competitors.Competitor) batchCount {
	b, counts := competitors.As[competitors.Batcher](c)
	bc := batchCount{b: b, counts: counts}
	if counts {
		bc.batches0, bc.ops0 = b.CommitBatches()
	}
	return bc
}

// addTo gives params the mean batch of the writes made since countBatches
// (warm-up included) as commit_batch_mean, and returns params (made when
// nil). A competitor that counts no batches gets no such param: an
// unmeasured batch is absent, never 0.
func (bc batchCount) addTo(params map[string]any) map[string]any {
	if !bc.counts {
		return params
	}
	if batches, ops := bc.b.CommitBatches(); batches > bc.batches0 {
		if params == nil {
			params = map[string]any{}
		}
		params["commit_batch_mean"] = float64(ops-bc.ops0) / float64(batches-bc.batches0)
		params["commit_batch_counts"] = "one round, warm-up included"
	}
	return params
}
