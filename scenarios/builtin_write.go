package scenarios

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// The single-threaded write scenarios: create, commit, and create once per
// durability mode on a fresh competitor.

// DurabilityModes are the modes of the durability sweep, in run order.
var DurabilityModes = []string{"immediate", "eventual", "none"}

// writeLatency measures o.CreateOps recorded operations of op.
func writeLatency(ctx context.Context, o Options, op Op) Measurement {
	return Latency(ctx, o.Delay.wrap(op), o.Warmup, 5, 2*o.CreateOps+100, o.CreateOps)
}

// NeedDurabilityModes: the competitor runs in the mode Config.Durability
// asks for (a remote server decides its own and is skipped).
var NeedDurabilityModes = need("competitor's durability mode is not the client's to choose (none to choose, or a remote server running in its own)",
	func(env *Env) bool {
		d, ok := competitors.As[competitors.Durable](env.Competitor)
		return ok && d.DurabilityMode() != ""
	}, nil)

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "create_table.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 50, Writes: true,
			Doc:   "create a table in the dataset's work namespace",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			op := createOp(env.Competitor.Catalog(), env.Dataset.Work, fmt.Sprintf("create_r%d", env.Round), env.Created)
			return Outcome{M: writeLatency(ctx, env.Opts, op)}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "commit_table.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 60, Writes: true,
			Doc:   "a set-properties commit guarded by the table UUID, round robin over 16 tables made for it",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: runCommit,
	})
	for i, mode := range DurabilityModes {
		Register(Scenario{
			Scenario: bench.Scenario{
				Name: "create_table.durability." + mode, Kind: bench.KindDurability, Metric: results.P50, Order: 70 + i, Writes: true,
				Doc:   "create_table on a fresh competitor opened in durability mode " + mode,
				Needs: []bench.Requirement{NeedDurabilityModes},
			},
			Run: func(ctx context.Context, env *Env) (Outcome, error) { return runDurability(ctx, env, mode) },
		})
	}
}

// runCommit measures commits on tables made for it, so the dataset's
// metadata is not grown by the commits.
func runCommit(ctx context.Context, env *Env) (Outcome, error) {
	cat := env.Competitor.Catalog()
	var tables []table.Identifier
	var uuids []uuid.UUID
	for i := range 16 {
		id := append(append(table.Identifier{}, env.Dataset.Work...), fmt.Sprintf("commit_r%d_%02d", env.Round, i))
		tbl, err := cat.CreateTable(ctx, id, dataset.Schema)
		if err != nil {
			return Outcome{}, Skip("create commit tables: " + err.Error())
		}
		env.Created(id)
		tables = append(tables, id)
		uuids = append(uuids, tbl.Metadata().TableUUID())
	}
	return Outcome{M: writeLatency(ctx, env.Opts, commitOp(env.Competitor, tables, uuids)),
		Params: map[string]any{"commit_tables": len(tables)}}, nil
}

// runDurability measures create_table on a fresh competitor built from the
// same factory in mode (see inDurability).
func runDurability(ctx context.Context, env *Env, mode string) (Outcome, error) {
	return inDurability(ctx, env, mode, "", func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error) {
		return Outcome{M: writeLatency(ctx, env.Opts, createOp(c.Catalog(), ns, "sweep", created))}, nil
	})
}

// inDurability runs measure on a fresh competitor built from the same
// factory in durability mode, in a namespace of its own, and drops and
// closes everything it made before returning. tag tells the directories and
// namespaces of different sweep scenarios apart. The outcome's params get
// the mode.
func inDurability(ctx context.Context, env *Env, mode, tag string,
	measure func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error),
) (_ Outcome, err error) {
	o := env.Opts
	cfg := env.Target.Config
	cfg.Durability = mode
	name := mode
	if tag != "" {
		name = tag + "-" + mode
	}
	cfg.Dir = filepath.Join(env.Target.Config.Dir, fmt.Sprintf("durability-%s-r%d", name, env.Round))
	ns := table.Identifier{fmt.Sprintf("%s_durability_%s_r%d", o.Namespace, strings.ReplaceAll(name, "-", "_"), env.Round)}
	c, err := startFresh(ctx, env, cfg, ns, "durability sweep "+mode, func(c competitors.Competitor) bool {
		d, ok := competitors.As[competitors.Durable](c)
		return ok && d.DurabilityMode() == mode
	}, fmt.Sprintf("a competitor asked for durability %s does not run in it", mode))
	if err != nil {
		return Outcome{}, err
	}
	defer func() { err = errors.Join(err, closeFresh(c, cfg.Dir)) }()
	var created createdSet
	out, err := measure(ctx, c, ns, created.add)
	if err != nil {
		return Outcome{}, err
	}
	if eph, ok := competitors.As[competitors.Ephemeral](c); !ok || !eph.Ephemeral() {
		d := &dataset.Dataset{Namespaces: []table.Identifier{ns}}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if derr := d.Drop(dctx, c.Catalog(), created.list(), o.Parallel, nil); derr != nil {
			return Outcome{}, fmt.Errorf("durability sweep %s: clean up: %w", mode, derr)
		}
	}
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	out.Params["durability"] = mode
	return out, nil
}

// closeFresh closes a competitor that startFresh started and removes its
// directory: nothing reads a sweep's files after its scenario, and a run
// that kept them would hold every sweep's tables on disk until it ends.
func closeFresh(c competitors.Competitor, dir string) error {
	return errors.Join(c.Close(), os.RemoveAll(dir))
}

// startFresh starts a fresh competitor of env's target with cfg (in the
// directory cfg.Dir, made here) for a sweep scenario, and makes the
// namespace ns of its own, so the sweep never touches the dataset, even
// when the fresh competitor shares a server with it. It is a skip (Skip)
// when the competitor cannot start or runs(c) says it does not run as
// asked (notAsked is the reason). The caller closes the competitor.
func startFresh(ctx context.Context, env *Env, cfg competitors.Config, ns table.Identifier, what string,
	runs func(competitors.Competitor) bool, notAsked string,
) (competitors.Competitor, error) {
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	c, err := env.Target.Factory.New(ctx, cfg)
	if err != nil {
		return nil, Skip("start: " + err.Error())
	}
	if !runs(c) {
		err = Skip(notAsked)
	} else if cerr := c.Catalog().CreateNamespace(ctx, ns, nil); cerr != nil {
		err = Skip("create namespace: " + cerr.Error())
	}
	if err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}
