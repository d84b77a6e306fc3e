package scenarios

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// The history variants: the scenarios that take a table, run once more per
// history level on that level's tables. A variant has its scenario's name
// (so --scenario selects both, and compare tells them apart by
// params.snapshots), its kind, metric and requirements, and follows it in
// the plan.

// historyRun measures one round of a variant on its level, with env's
// dataset tables already replaced by the level's.
type historyRun func(ctx context.Context, env *Env, v variantRound) (Outcome, error)

// variantRound is what a historyRun gets besides its Env.
type variantRound struct {
	lv   *dataset.HistoryLevel
	base Scenario
	mode string // the snapshots mode of a variant with modes
	// datasetTables are the dataset's own tables.
	datasetTables []table.Identifier
}

// historyVariant says which registered scenario runs per level, and how.
type historyVariant struct {
	name   string // the registered name (the stem of a levelled scenario)
	levels bool   // levelled: one plan entry per thread level
	run    historyRun
	// modes, when set, makes one variant per level and mode, with
	// params.snapshots_mode.
	modes []string
}

var historyVariants = []historyVariant{
	{name: "load_table.latency", run: onLevelTables},
	{name: "load_table.cold.latency", run: coldOnLevel},
	{name: "load_table.revalidate.latency", run: onLevelTables},
	{name: "load_table.throughput", levels: true, run: onLevelTables},
	{name: "commit_table.latency", run: commitOnLevel},
	{name: DirectLoadName, run: directOnLevel, modes: SnapshotModes},
}

// withHistory returns plan with the history variants of each of its
// scenarios inserted after it, one per level of o.History.
func (o Options) withHistory(plan []Scenario) []Scenario {
	if !o.History.Enabled() {
		return plan
	}
	var out []Scenario
	for _, sc := range plan {
		out = append(out, sc)
		v, ok := variantOf(sc, o.Threads)
		if !ok {
			continue
		}
		modes := v.modes
		if modes == nil {
			modes = []string{""}
		}
		for _, n := range o.History.Levels {
			for _, mode := range modes {
				out = append(out, historyScenario(sc, v, n, mode, o.History))
			}
		}
	}
	return out
}

// variantOf finds the history variant of plan entry sc.
func variantOf(sc Scenario, threads []int) (historyVariant, bool) {
	for _, v := range historyVariants {
		if !v.levels && sc.Name == v.name {
			return v, true
		}
		if v.levels {
			for _, t := range threads {
				if sc.Name == LevelName(v.name, t) && sc.Threads == t {
					return v, true
				}
			}
		}
	}
	return historyVariant{}, false
}

// historyScenario is base run on the tables of level n (in mode, for a
// variant with modes).
func historyScenario(base Scenario, v historyVariant, n int, mode string, h dataset.History) Scenario {
	s := base
	s.Params = map[string]any{"snapshots": n, "history_tables": h.Tables}
	if mode != "" {
		s.Params["snapshots_mode"] = mode
	}
	s.Doc = fmt.Sprintf("%s, on tables with %d snapshots", base.Doc, n)
	s.Run = func(ctx context.Context, env *Env) (Outcome, error) {
		lv, err := env.historyLevel(ctx, n)
		if err != nil {
			return Outcome{}, Skip("history level: " + err.Error())
		}
		lenv := *env
		ds := *env.Dataset
		ds.Tables = lv.Tables
		lenv.Dataset = &ds
		out, err := v.run(ctx, &lenv, variantRound{lv: lv, base: base, mode: mode, datasetTables: env.Dataset.Tables})
		if err != nil {
			return out, err
		}
		annotateLevel(lv, &out)
		if mode != "" {
			out.Params["snapshots_mode"] = mode
		}
		return out, nil
	}
	return s
}

// annotateLevel adds what every line of the level says: how its history was
// built, in how long, and what a load of it gives the client.
func annotateLevel(lv *dataset.HistoryLevel, out *Outcome) {
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	if out.Measures == nil {
		out.Measures = map[string]results.Measure{}
	}
	out.Params["history_built"] = lv.Built
	if len(lv.Notes) > 0 {
		out.Params["history_note"] = strings.Join(lv.Notes, "; ")
	}
	out.Params["metadata_bytes_of"] = lv.MetadataBytesOf
	// The level again, typed, for readers of the line (params.snapshots
	// defines its cell).
	out.Measures["history_snapshots"] = results.Measure{Value: float64(lv.Snapshots), Unit: results.UnitCount}
	out.Measures["metadata_bytes"] = results.Measure{Value: float64(lv.MetadataBytes), Unit: results.UnitBytes}
	out.Measures["history_build_s"] = results.Measure{Value: lv.BuildTime.Seconds(), Unit: results.UnitSeconds, Better: results.Lower}
	if m := lv.Received; m != nil {
		out.Measures["snapshots_received"] = results.Measure{Value: float64(len(m.Snapshots())), Unit: results.UnitCount}
		out.Measures["snapshot_log_received"] = results.Measure{Value: float64(countSeq(m.SnapshotLogs())), Unit: results.UnitCount}
		out.Measures["metadata_log_received"] = results.Measure{Value: float64(countSeq(m.PreviousFiles())), Unit: results.UnitCount}
	}
}

// onLevelTables runs base itself on the level's tables.
func onLevelTables(ctx context.Context, env *Env, v variantRound) (Outcome, error) {
	return v.base.Run(ctx, env)
}

// coldOnLevel runs the cold load on the level's tables, then loads the
// dataset's own tables once, untimed: the reopens made them cold too.
func coldOnLevel(ctx context.Context, env *Env, v variantRound) (Outcome, error) {
	out, err := v.base.Run(ctx, env)
	if err != nil {
		return out, err
	}
	cat := env.Competitor.Catalog()
	for _, id := range v.datasetTables {
		if ctx.Err() != nil {
			break
		}
		_, _ = cat.LoadTable(ctx, id) // re-warm; failures were measured elsewhere
	}
	return out, nil
}

// commitOnLevel commits set-properties updates round robin over the
// level's tables, each guarded by its UUID: every commit rewrites metadata
// carrying the whole history.
func commitOnLevel(ctx context.Context, env *Env, v variantRound) (Outcome, error) {
	cat := env.Competitor.Catalog()
	uuids := make([]uuid.UUID, len(v.lv.Tables))
	for i, id := range v.lv.Tables {
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			return Outcome{}, Skip(fmt.Sprintf("load %s: %v", strings.Join(id, "."), err))
		}
		uuids[i] = tbl.Metadata().TableUUID()
	}
	return Outcome{M: writeLatency(ctx, env.Opts, commitOp(env.Competitor, v.lv.Tables, uuids)),
		Params: map[string]any{"commit_tables": len(v.lv.Tables)}}, nil
}

// directOnLevel is the direct load in the variant's mode.
func directOnLevel(ctx context.Context, env *Env, v variantRound) (Outcome, error) {
	l, _ := competitors.As[competitors.SnapshotModeLoader](env.Competitor)
	return directLoad(ctx, env, l, v.mode)
}

func countSeq[T any](seq iter.Seq[T]) int {
	n := 0
	for range seq {
		n++
	}
	return n
}

// historyLevel returns level n of the history tables on env's competitor,
// built on first use (dataset.Dataset.HistoryLevel).
func (env *Env) historyLevel(ctx context.Context, n int) (*dataset.HistoryLevel, error) {
	parallel := env.Opts.Parallel
	if p := env.Target.Factory.SetupParallel; p > 0 && p < parallel {
		parallel = p
	}
	return env.Dataset.HistoryLevel(ctx, dataset.HistoryBuild{Competitor: env.Competitor, Root: env.Opts.Namespace,
		History: env.Opts.History, Parallel: parallel, Created: env.Created, Log: env.Opts.Log}, n)
}
