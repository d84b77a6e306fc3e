package scenarios

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// The snapshot load modes of the REST spec: a load_table with
// ?snapshots=all (every snapshot the metadata holds) or ?snapshots=refs
// (only the snapshots a branch or tag points at). iceberg-go's client asks
// for neither, so katbench sends the request itself; the line says so. A
// server that ignores the mode answers with every snapshot, and the
// snapshots_received measure shows it.

// DirectLoadName is the scenario of katbench's own load-table request.
const DirectLoadName = "load_table.direct.latency"

// The snapshot modes, as the spec spells them.
const (
	SnapshotsAll  = "all"
	SnapshotsRefs = "refs"
)

// SnapshotModes are the modes a history level measures.
var SnapshotModes = []string{SnapshotsAll, SnapshotsRefs}

// NeedModeLoader: the competitor's load-table route can be asked for a
// snapshot mode.
var NeedModeLoader = Capability[competitors.SnapshotModeLoader]("competitor is not reached over REST: " +
	"the snapshots load mode is a query parameter of the REST load-table route")

// directLoad measures o.LatencyOps loads in mode over the dataset tables
// env holds. The measured loads read the answer whole without decoding it
// (the server's and the wire's cost, not a client's parse); one more load
// of each table afterwards, untimed, counts the snapshots it answers.
func directLoad(ctx context.Context, env *Env, l competitors.SnapshotModeLoader, mode string) (Outcome, error) {
	tables := env.Dataset.Tables
	order := picks(min(max(env.Opts.LatencyOps, 1), 1<<16), len(tables))
	var answers, bytes atomic.Int64
	op := func(ctx context.Context, _, i int) error {
		id := tables[order[i%len(order)]]
		a, err := l.LoadTableMode(ctx, id, mode, false)
		if err != nil {
			return fmt.Errorf("load %s (snapshots=%s): %w", strings.Join(id, "."), mode, err)
		}
		answers.Add(1)
		bytes.Add(int64(a.Bytes))
		return nil
	}
	o := env.Opts
	warm := Latency(ctx, op, o.Warmup, 10, 10*o.LatencyOps+1000, 0)
	answers.Store(0)
	bytes.Store(0)
	m := Latency(ctx, o.Delay.wrap(op), 0, 0, 0, o.LatencyOps)
	m.WarmupErrors = warm.WarmupErrors
	if m.FirstErr == nil {
		m.FirstErr = warm.FirstErr
	}
	out := Outcome{M: m, Params: map[string]any{"snapshots_mode": mode, "request": l.ModeLoadRequest(), "answer": "read, not decoded"},
		Measures: map[string]results.Measure{}}
	if n := answers.Load(); n > 0 {
		out.Measures["answer_bytes"] = results.Measure{Value: float64(bytes.Load()) / float64(n), Unit: results.UnitBytes}
	}
	counted, snaps := 0, 0
	for _, id := range tables[:min(len(tables), revalidateTables)] {
		a, err := l.LoadTableMode(ctx, id, mode, true)
		if err != nil {
			out.M.Rec.Error() // a broken count is a failed operation of the line
			if out.M.FirstErr == nil {
				out.M.FirstErr = fmt.Errorf("count snapshots of %s (snapshots=%s): %w", strings.Join(id, "."), mode, err)
			}
			break
		}
		counted++
		snaps += a.Snapshots
	}
	if counted > 0 {
		out.Measures["snapshots_answered"] = results.Measure{Value: float64(snaps) / float64(counted), Unit: results.UnitCount}
	}
	return out, nil
}

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: DirectLoadName, Kind: bench.KindLatency, Metric: results.P50, Order: 16, ReadsOnly: true,
			Doc: "load_table by katbench's own REST request in a snapshots mode (params.snapshots_mode: all here; " +
				"all and refs on each --snapshots level), the answer read whole but not decoded",
			Needs: []bench.Requirement{NeedDataset, NeedTables, NeedModeLoader},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			l, _ := competitors.As[competitors.SnapshotModeLoader](env.Competitor)
			return directLoad(ctx, env, l, SnapshotsAll)
		},
	})
}
