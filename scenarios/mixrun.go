package scenarios

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/workload"
)

// KindMix is the kind of a mix's lines: the mix line and each operation's.
const KindMix bench.Kind = "mix"

// threadsDim are the dimensions of the lines of a mix and of a capacity
// search, which no registered scenario describes: their worker count.
var threadsDim = []bench.Dimension{bench.DimThreads}

// mixCell accumulates one line set (one level) of a mix on one competitor.
type mixCell struct {
	skip     string
	ops      []*results.Recorder // per operation
	total    *results.Recorder
	elapsed  time.Duration
	warmErrs int64
	firstErr error
	opErr    []error
	counts   contendedCounts
	roundP50 []results.Samples // per operation, then the total at the end
	roundOps []results.Samples
	rounds   int
	params   map[string]any
	// measures are the last round's open-loop measures (achieved_rate),
	// on every line of the mix.
	measures map[string]results.Measure
}

// mixState is a mix's preparation on one competitor, made at its first
// round.
type mixState struct {
	prep  mixPrep
	ops   []keyedOp
	space *workload.KeySpace
	err   error // a Skip: why the mix cannot run there
	done  bool
}

// runMix runs the Workload instead of the scenarios: closed loop once per
// thread level, or open loop at Options.Rate, round-interleaved over the
// competitors like the scenarios.
func (r *Runner) runMix(ctx context.Context, states []*state) error {
	if r.Opts.Capacity != nil {
		return r.runCapacity(ctx, states)
	}
	o, wl := r.Opts, r.Opts.Workload
	levels := o.Threads
	if o.Rate > 0 {
		levels = []int{max(o.OpenWorkers, 1)}
	}
	prepared := make([]*mixState, len(states))
	for i := range prepared {
		prepared[i] = &mixState{}
	}
	// One cell per level, measured on every competitor in interleaved
	// rounds by the engine's loop; its lines are written when its last
	// round is done. No progress: a mix reports its rounds on the log.
	cells := make([]bench.Cell, len(levels))
	for k, level := range levels {
		var mc []*mixCell
		cells[k] = bench.CellFuncs{
			StartFunc: func(context.Context) error {
				mc = make([]*mixCell, len(states))
				for i := range mc {
					mc[i] = newMixCell(len(wl.Weighted()))
				}
				return nil
			},
			RoundFunc: func(ctx context.Context, round, i int) error {
				return r.mixRound(ctx, states[i], prepared[i], mc[i], level, round)
			},
			FinishFunc: func(context.Context) error {
				for i, s := range states {
					if err := r.emitMix(s, mc[i], level); err != nil {
						return err
					}
				}
				return nil
			},
		}
	}
	return bench.RunCells(ctx, cells, len(states), o.Rounds, nil, "")
}

func newMixCell(n int) *mixCell {
	c := &mixCell{total: results.NewRecorder(), opErr: make([]error, n), params: map[string]any{},
		roundP50: make([]results.Samples, n+1), roundOps: make([]results.Samples, n+1)}
	for range n {
		c.ops = append(c.ops, results.NewRecorder())
	}
	return c
}

// mixRound measures one round of the mix on s into c.
func (r *Runner) mixRound(ctx context.Context, s *state, ms *mixState, c *mixCell, level, round int) error {
	if c.skip != "" {
		return nil
	}
	o, wl := r.Opts, r.Opts.Workload
	env := &Env{Competitor: s.c, Dataset: s.d, SetupErr: s.setup, Opts: o, Threads: level, Round: round, Target: s.t, created: &s.created}
	if s.setup != nil {
		env.Dataset = nil
	}
	for _, need := range []bench.Requirement{NeedDataset, NeedTables} {
		if !need.Met(env) {
			c.skip = need.Explain(env)
			return nil
		}
	}
	ops, err := r.prepareMix(ctx, s, ms, env)
	if reason, ok := skipped(err); ok {
		c.skip = reason
		return nil
	}
	if err != nil {
		return err
	}
	ms.prep.counts = &c.counts
	if ms.prep.ref != "" {
		c.params["commit_ref"] = ms.prep.ref
	}
	if o.Rounds > 1 {
		r.logf("%s: mix %s (round %d/%d)", s.c.Name(), wl.Mix.Name, round+1, o.Rounds)
	} else {
		r.logf("%s: mix %s", s.c.Name(), wl.Mix.Name)
	}
	m, byOp, params, measures, err := measureMix(ctx, wl, o, ms.space, ops, level, round, false)
	if err != nil {
		return fmt.Errorf("%s mix %s: %w", s.c.Name(), wl.Mix.Name, err)
	}
	c.total.Merge(m.Rec)
	c.elapsed += m.Elapsed
	c.warmErrs += m.WarmupErrors
	if c.firstErr == nil {
		c.firstErr = m.FirstErr
	}
	for k, rec := range byOp.recs {
		c.ops[k].Merge(rec)
		if c.opErr[k] == nil {
			c.opErr[k] = byOp.errs[k].err
		}
		c.roundP50[k] = append(c.roundP50[k], p50ms(rec))
		c.roundOps[k] = append(c.roundOps[k], opsPerSec(rec, m.Elapsed))
	}
	n := len(byOp.recs)
	c.roundP50[n] = append(c.roundP50[n], p50ms(m.Rec))
	c.roundOps[n] = append(c.roundOps[n], opsPerSec(m.Rec, m.Elapsed))
	c.rounds++
	for k, v := range params {
		c.params[k] = v
	}
	if measures != nil {
		c.measures = measures
	}
	return nil
}

// prepareMix prepares the workload's operations on s once (its first
// call) and returns them for env's level and round. A Skip error says why
// the mix cannot run there.
func (r *Runner) prepareMix(ctx context.Context, s *state, ms *mixState, env *Env) ([]keyedOp, error) {
	wl := r.Opts.Workload
	if !ms.done {
		r.logf("%s: preparing mix %s", s.c.Name(), wl.Mix.Name)
		ms.done = true
		ms.space = workload.NewKeySpace(wl.KeysUsed(), len(env.Dataset.Tables), wl.Seed)
		for _, w := range wl.Weighted() {
			op, err := mixOps[w.Op](ctx, env, &ms.prep)
			if err != nil {
				ms.err = err
				break
			}
			ms.ops = append(ms.ops, op)
		}
	}
	if ms.err != nil {
		if _, ok := skipped(ms.err); ok {
			return nil, ms.err
		}
		return nil, fmt.Errorf("%s mix %s: %w", s.c.Name(), wl.Mix.Name, ms.err)
	}
	// create_table names its tables by level and round: rebuild it.
	ops := append([]keyedOp(nil), ms.ops...)
	for k, w := range wl.Weighted() {
		if w.Op == "create_table" {
			op, err := mixOps[w.Op](ctx, env, &ms.prep)
			if err != nil {
				return nil, fmt.Errorf("%s mix %s: %w", s.c.Name(), wl.Mix.Name, err)
			}
			ops[k] = op
		}
	}
	return ops, nil
}

func p50ms(rec *results.Recorder) float64 {
	if rec.Count() == 0 {
		return math.NaN()
	}
	return float64(rec.Percentile(50)) / 1e3
}

func opsPerSec(rec *results.Recorder, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return math.NaN()
	}
	return float64(rec.Count()) / elapsed.Seconds()
}

// mixSplit is one measurement split by operation.
type mixSplit struct {
	recs []*results.Recorder
	errs []errHolder
}

// mixWorker is one worker's random state. Not shared.
type mixWorker struct {
	rnd    *rand.Rand
	choose func() int
	n      int
}

// measureMix runs ops in wl's proportions on level workers (closed loop)
// or at o.Rate (open loop) for o.Duration after o.Warmup, and returns the
// whole, each operation's share, the params that shaped it and its
// open-loop measures (achieved_rate). With
// halves (open loop only) the split has two entries per operation: those
// due in the first half of the measured phase, then the rest (capacity's
// settling check).
func measureMix(ctx context.Context, wl *workload.Workload, o Options, space *workload.KeySpace, ops []keyedOp, level, round int, halves bool) (Measurement, mixSplit, map[string]any, map[string]results.Measure, error) {
	weights := wl.Weighted()
	cum := make([]float64, len(weights))
	var total float64
	for i, w := range weights {
		total += w.Weight
		cum[i] = total
	}
	split := mixSplit{errs: make([]errHolder, len(ops))}
	classes := len(ops)
	halves = halves && o.Rate > 0
	if halves {
		classes *= 2
	}
	// The pacer hands operations out in due order: the first halfN it
	// hands out are the warm-up's and the first half's.
	var handed atomic.Int64
	halfN := int64(o.Warmup.Seconds()*o.Rate) + max(int64(o.Duration.Seconds()*o.Rate), 1)/2
	workers := make([]mixWorker, level)
	for i := range workers {
		// One stream per (seed, level, round, worker): reproducible, and
		// no two workers draw the same sequence.
		r := rand.New(rand.NewPCG(wl.Seed, uint64(level)<<40|uint64(round)<<20|uint64(i)))
		workers[i] = mixWorker{rnd: r, choose: space.Chooser(r)}
	}
	run := func(ctx context.Context, w int) (int, error) {
		mw := &workers[w]
		second := halves && handed.Add(1) > halfN
		x := mw.rnd.Float64() * total
		k := 0
		for k < len(cum)-1 && x >= cum[k] {
			k++
		}
		n := mw.n
		mw.n++
		err := ops[k](ctx, w, n, mw.choose())
		if err != nil {
			split.errs[k].set(err)
		}
		if second {
			return k + len(ops), err
		}
		return k, err
	}
	params := map[string]any{}
	var measures map[string]results.Measure
	var m Measurement
	if o.Rate > 0 {
		arrivals := wl.Arrivals
		if arrivals == "" {
			arrivals = pacer.Constant
		}
		res, err := pacer.RunClasses(ctx, pacer.Config{Rate: o.Rate, Duration: o.Duration, Warmup: o.Warmup, Workers: level,
			Arrivals: arrivals, Seed: wl.Seed + uint64(round), Classes: classes}, run)
		if err != nil && ctx.Err() == nil {
			return m, split, nil, nil, fmt.Errorf("open loop: %w", err)
		}
		m = Measurement{Rec: res.Rec, Elapsed: res.Elapsed, FirstErr: res.FirstErr, WarmupErrors: res.WarmupErrors}
		split.recs = res.ByClass
		open, ms := openParams(res, o.Rate, level)
		for k, v := range open {
			params[k] = v
		}
		measures = ms
		params["arrivals"] = string(arrivals)
	} else {
		m, split.recs = throughputClasses(ctx, func(ctx context.Context, w, _ int) (int, error) { return run(ctx, w) },
			classes, level, min(o.Warmup, o.Duration), o.Duration, int64(max(level, mixMinOps*len(ops))))
	}
	return m, split, params, measures, nil
}

// mixMinOps is the least operations per weighed operation a closed-loop
// mix measures, whatever its duration: enough that an operation of a few
// per cent is on its line.
const mixMinOps = 100

// openParams are what an open-loop line says about its rate: asked,
// kept, and the pacer's own scheduling error, and as a measure what was
// achieved.
func openParams(res pacer.Result, rate float64, workers int) (map[string]any, map[string]results.Measure) {
	achieved := res.Achieved()
	p := map[string]any{
		"rate": rate, "open_workers": workers, "rate_kept": res.Kept(rate),
		"sched_p50_us": float64(res.Sched.Percentile(50)) / 1e3, "sched_p99_us": float64(res.Sched.Percentile(99)) / 1e3,
	}
	if !res.Kept(rate) {
		p["rate_note"] = fmt.Sprintf("target could not keep up: achieved %.0f of %.0f ops/s requested (< 95 %%); latencies include the queueing", achieved, rate)
	}
	return p, map[string]results.Measure{"achieved_rate": {Value: achieved, Unit: results.UnitOpsPerSec, Better: results.Higher}}
}

// commitParams are the commits' counters, on the commit line and the mix
// line: conflicts are neither successes nor errors.
func (c *contendedCounts) commitParams() map[string]any {
	return map[string]any{
		"commit_conflicts":                   c.conflicts.Load(),
		"commit_retried_ops":                 c.retried.Load(),
		"commit_max_attempts":                c.maxTries.Load(),
		"commit_conflicts_not_commit_failed": c.unwrapped.Load(),
		"commit_counts":                      "all rounds of the line, warm-up included",
		"commit_backoff":                     fmt.Sprintf("uniform random, up to %s doubling to %s per lost race", backoffBase, backoffMax),
	}
}

// emitMix writes one line per operation and the mix line of one level on
// one competitor; all share the run id.
func (r *Runner) emitMix(s *state, c *mixCell, level int) error {
	wl := r.Opts.Workload
	loop, metric := results.Closed, results.OpsSec
	if r.Opts.Rate > 0 {
		loop, metric = results.Open, results.P50
	}
	base := wl.Params()
	for k, v := range c.params {
		base[k] = v
	}
	mixName := "mix." + wl.Mix.Name
	weights := wl.Weighted()
	write := func(name string, metric results.Metric, rec *results.Recorder, firstErr error, warm *int64, p50, ops results.Samples, extra map[string]any) error {
		p := map[string]any{}
		for k, v := range base {
			p[k] = v
		}
		for k, v := range extra {
			p[k] = v
		}
		if c.skip != "" {
			line := r.Run.Skipped(s.c.Name(), name, c.skip, r.params(s, p))
			line.Threads = level
			bench.Stamp(&line, bench.Scenario{Kind: KindMix, Metric: metric, Dims: threadsDim}, bench.Level{bench.DimThreads: float64(level)})
			return r.Sink.Write(line)
		}
		line := r.Run.Result(s.c.Name(), name, loop, level, rec, c.elapsed, r.params(s, p))
		bench.Stamp(&line, bench.Scenario{Kind: KindMix, Metric: metric, Dims: threadsDim}, bench.Level{bench.DimThreads: float64(level)})
		line.Rounds, line.RoundP50US, line.RoundOpsSec, line.WarmupErrors = c.rounds, p50, ops, warm
		for k, m := range c.measures {
			line.SetMeasure(k, m.Value, m.Unit, m.Better)
		}
		if firstErr != nil {
			line.FirstError = firstErr.Error()
		}
		return r.Sink.Write(line)
	}
	for k, w := range weights {
		extra := map[string]any{"op": w.Op, "op_share": wl.Mix.Share(w.Op)}
		if w.Op == "commit_table" {
			for kk, v := range c.counts.commitParams() {
				extra[kk] = v
			}
		}
		var rec *results.Recorder
		var firstErr error
		if c.skip == "" {
			rec, firstErr = c.ops[k], c.opErr[k]
		}
		op, _ := workload.LookupOp(w.Op) // every weighed operation is one: ParseMix checks
		if err := write(op.Scenario, results.P50, rec, firstErr, nil, c.roundP50[k], c.roundOps[k], extra); err != nil {
			return err
		}
	}
	extra := map[string]any{}
	if wl.Mix.Has("commit_table") {
		extra = c.counts.commitParams()
	}
	// The warm-up's errors, of every operation, are on the mix line.
	warm := c.warmErrs
	n := len(weights)
	return write(mixName, metric, c.total, c.firstErr, &warm, c.roundP50[n], c.roundOps[n], extra)
}
