package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/servercost"
	"github.com/nordisk/katbench/workload"
)

// cleanupTimeout bounds the dropping of what a run created, which happens
// even after the run's context was cancelled.
const cleanupTimeout = 10 * time.Minute

// CompetitorSetup is one competitor to run: its factory and the config to build it.
type CompetitorSetup struct {
	Factory competitors.Factory
	Config  competitors.Config
}

// Options shape a run. Zero values are filled by Defaults.
type Options struct {
	// Quick marks a smoke run (small dataset, short phases, few levels):
	// it leaves out the sweep scenarios (Scenario.Sweep) unless Full is
	// set or Select names them.
	Quick bool
	// Full runs the sweep scenarios in a quick run too.
	Full      bool
	Shape     dataset.Shape
	Namespace string // root namespace of the dataset (unique per run)
	// ReadOnly, when set, are existing tables to read instead of a dataset
	// of katbench's own: nothing is created or dropped, and only the
	// scenarios marked ReadsOnly run.
	ReadOnly   []table.Identifier
	LatencyOps int           // recorded operations per latency scenario and round
	CreateOps  int           // recorded creates (and commits) per scenario and round
	Warmup     time.Duration // unrecorded warm-up before each scenario and round
	// ServerWarmup is a one-time warm-up of each competitor after its
	// dataset is built and before its first scenario (control included),
	// so a JVM server's JIT has settled. Negative means the competitor's
	// own WarmupHint (0 for competitors without one).
	ServerWarmup time.Duration
	Duration     time.Duration // measured time per throughput level and round
	Threads      []int         // throughput levels
	Parallel     int           // workers for dataset setup and cleanup
	// Rounds is how many times each scenario is measured on each target,
	// interleaved: every target does round 1 of a scenario, then every
	// target in reverse order does round 2, … (A B C, C B A, A B C). A
	// line merges the histograms of its rounds and lists each round's p50
	// and ops/s. 0 means 1.
	Rounds int
	Select bench.Selector
	// Durability is the mode the competitors run in (params only; the
	// factory config carries it).
	Durability string
	// Log receives one status line per phase; Progress receives setup
	// progress. Either may be nil.
	Log      io.Writer
	Progress bench.Progress
	// StartAt, when set, is the wall-clock instant measuring starts, after
	// every dataset is built and warmed: the workers of a distributed run
	// measure together.
	StartAt time.Time
	// StartGate, when set, is a start barrier: once every dataset is
	// built and warmed the runner logs ReadyMark and waits for StartGate
	// to return the start instant (the same for every worker), then
	// measures from it as from StartAt.
	StartGate func(ctx context.Context) (time.Time, error)
	// Live, when set, receives the measured operations as they end
	// (--metrics-addr).
	Live *LiveMetrics
	// Extra params stamped on every line (a worker's shard, its start).
	Extra map[string]any
	// Rate, when > 0, runs the open-loop scenarios (KindOpen) at this many
	// operations per second per target, with up to OpenWorkers in flight.
	Rate        float64
	OpenWorkers int
	// Workload, when set, runs this mix instead of the scenarios
	// (closed loop per Threads level, or open loop at Rate).
	Workload *workload.Workload
	// Capacity, with Workload, searches each target's highest rate within
	// an objective instead (Rate must be 0).
	Capacity *workload.Capacity
	// ViewsPerLeaf is the views per leaf namespace the view scenarios
	// make; 0 means the default of [ViewsPerLeaf].
	ViewsPerLeaf int
	// Delay injects a fixed per-operation slowdown for calibration; the
	// zero value injects nothing.
	Delay TestDelay
	// History adds the history-depth levels (package dataset builds them,
	// history_plan.go measures them).
	History dataset.History
	// PageSize is the page size the listing scenarios ask a paging
	// client for; 0 means ListPageSize.
	PageSize int
	// Measuring, when set, is called once every dataset is built and
	// warmed, before the first measured scenario; the function it returns
	// is called when the last one is done (before the cleanup). A CPU
	// profile of the measured phase (--cpuprofile) hangs here.
	Measuring func() (done func() error, err error)
	// Sizes, when set, makes the run a growth sweep (sweep.go): every
	// scenario is measured at each size in turn, ascending, the dataset
	// grown between them; Shape is then SweepShape's at Sizes[0].
	Sizes []int
	// SetupBudget, when > 0, bounds each competitor's dataset setup over
	// the whole sweep: a competitor whose setup runs out stops at the size
	// it reached, and its lines at larger sizes say so.
	SetupBudget time.Duration
	// Cleanup, when set, bounds the dropping of what the run created,
	// which runs after the run's context ended too: cancelled (a second
	// Ctrl-C), the drop stops and the run's error says what it left.
	Cleanup context.Context
	// PerNamespace, when > 0, makes a growth sweep hold this many tables
	// in every leaf namespace at every size, the leaves (one level under
	// the root) growing in number instead of their tables.
	PerNamespace int
	// ServerCost says how each competitor's server cost is measured
	// (servercost.go); the zero value measures none.
	ServerCost ServerCost
}

// QuickThreads are the throughput levels of a quick run: one worker and
// a few, enough to see whether a path scales at all.
var QuickThreads = []int{1, 4}

// Defaults returns the options of a full run (quick=false) or a --quick
// run: a smoke run of about half a minute on a small machine.
func Defaults(quick bool) Options {
	if quick {
		return Options{Quick: true, Shape: dataset.ShapeFor(200), LatencyOps: 1000, CreateOps: 100,
			Warmup: 200 * time.Millisecond, ServerWarmup: -1, Duration: 500 * time.Millisecond, Threads: QuickThreads, Parallel: 4, Rounds: 1}
	}
	return Options{Shape: dataset.ShapeFor(10_000), LatencyOps: 20_000, CreateOps: 1000,
		Warmup: 2 * time.Second, ServerWarmup: -1, Duration: 5 * time.Second, Threads: DefaultThreads, Parallel: 4, Rounds: 1}
}

// Runner drives targets through the scenarios and writes one record per
// (target, scenario) to Sink. A Runner is used by one goroutine.
type Runner struct {
	Run  *results.Run
	Sink results.Sink
	Opts Options

	size    int // the growth sweep's size being measured; 0 outside a sweep
	sizeIdx int // its index in Opts.Sizes
}

// state is one live competitor during a run.
type state struct {
	t        CompetitorSetup
	c        competitors.Competitor
	d        *dataset.Dataset
	setup    error // why the dataset could not be built
	control  *float64
	created  createdSet    // tables made by scenarios
	warmed   time.Duration // the one-time server warm-up it really got
	parallel int           // setup workers it tolerates
	meter    servercost.Meter
	meterWhy string // why there is no meter
	wire     competitors.WireCounter
	split    competitors.TimeSplitter
	setupDur time.Duration // dataset setup so far (a sweep's growth included)
	stopped  string        // why a sweep stopped growing it; "" while it grows
	bulk     bool          // a sweep grew it through competitors.BulkCreator
}

// cell accumulates one scenario's rounds on one competitor.
type cell struct {
	skip      string
	rec       *results.Recorder
	elapsed   time.Duration
	firstErr  error
	warmErrs  int64
	roundP50  results.Samples
	roundOps  results.Samples
	params    map[string]any
	measuredN int
	counters  results.CounterDelta
	countOps  int64
	measures  map[string]results.Measure
	server    *serverTotals
	auth      authTotals
}

// Execute builds every target, builds its dataset and warms it up, then
// runs every selected scenario on every target in round-interleaved order
// and cleans up. A target that cannot be built fails the run before
// anything is measured; a scenario that fails is a line with errors, never
// an abort. Whatever the run created is dropped again, also when it fails.
func (r *Runner) Execute(ctx context.Context, targets []CompetitorSetup) (err error) {
	o := r.Opts
	if o.Rounds < 1 {
		o.Rounds = 1
		r.Opts.Rounds = 1
	}
	counters := results.OpenCounters()
	defer counters.Close()
	ctx = results.WithCounters(ctx, counters)
	states := make([]*state, 0, len(targets))
	defer func() {
		for _, s := range states {
			err = errors.Join(err, r.cleanup(s))
		}
	}()
	for _, t := range targets {
		r.logf("%s: starting", t.Factory.Name)
		c, err := t.Factory.New(ctx, t.Config)
		if err != nil {
			return fmt.Errorf("start %s: %w", t.Factory.Name, err)
		}
		s := &state{t: t, c: c, parallel: o.Parallel}
		s.meter, s.meterWhy = o.ServerCost.meter(c)
		s.wire, _ = competitors.As[competitors.WireCounter](c)
		s.split, _ = competitors.As[competitors.TimeSplitter](c)
		if p := t.Factory.SetupParallel; p > 0 && p < s.parallel {
			s.parallel = p
		}
		states = append(states, s)
	}
	for _, s := range states {
		if len(o.ReadOnly) > 0 {
			r.logf("%s: read-only: reading %d existing tables; nothing is created or dropped", s.c.Name(), len(o.ReadOnly))
			if s.d, err = dataset.Existing(ctx, s.c.Catalog(), o.ReadOnly); err != nil {
				return fmt.Errorf("%s: %w", s.c.Name(), err)
			}
		} else if err := r.build(ctx, s); err != nil {
			return err
		}
		warm := o.ServerWarmup
		if warm < 0 {
			warm = 0
			if h, ok := competitors.As[competitors.WarmupHinter](s.c); ok {
				warm = h.WarmupHint()
			}
		}
		if s.setup == nil && warm > 0 {
			r.logf("%s: warming the server up for %v (JIT settling; --server-warmup)", s.c.Name(), warm)
			stop := reportElapsed(prefixed(o.Progress, s.c.Name()), "server warm-up (s)", warm)
			Throughput(ctx, warmOp(s.c, s.d), 4, 0, warm)
			stop()
			s.warmed = warm
		}
	}
	if o.StartGate != nil {
		r.logf("%s: setup done, waiting for the start instant", ReadyMark)
		at, gerr := o.StartGate(ctx)
		if gerr != nil {
			return fmt.Errorf("waiting for the start instant: %w", gerr)
		}
		o.StartAt = at
		if o.Extra != nil {
			o.Extra["start_at"] = at.UTC().Format(time.RFC3339Nano)
		}
		if late := time.Since(at); late > 0 {
			r.logf("the start instant %s passed %v ago: starting now", at.UTC().Format(time.RFC3339Nano), late.Round(time.Millisecond))
		}
	}
	if !o.StartAt.IsZero() {
		r.logf("waiting until %s to start measuring (--start-at)", o.StartAt.UTC().Format(time.RFC3339Nano))
		pacer.Sleep(ctx, time.Until(o.StartAt))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if o.Measuring != nil {
		done, merr := o.Measuring()
		if merr != nil {
			return merr
		}
		defer func() { err = errors.Join(err, done()) }()
	}
	if o.Workload != nil {
		return r.runMix(ctx, states)
	}
	plan := o.planned()
	steps := len(plan) * o.Rounds * len(states)
	runsOn := make([]int, len(plan))
	for i, sc := range plan {
		for _, st := range states {
			if r.meets(sc, st) {
				runsOn[i]++
			}
		}
	}
	r.logf("plan: %d scenarios × %d targets × %d rounds = %d measurements; %s", len(plan), len(states), o.Rounds, steps, Estimate(plan, runsOn, o))
	if o.Quick && !o.Full && len(o.Select) == 0 {
		r.logf("--quick: threads %v, no durability throughput sweep (--full or no --quick runs every level and the sweep)", o.Threads)
	}
	if len(o.Sizes) > 0 {
		return r.sweep(ctx, states, plan)
	}
	return bench.RunCells(ctx, r.cells(states, plan), len(states), o.Rounds, o.Progress, bench.OverallTask)
}

// build makes s's dataset (Build) in the run's namespace; a failure is
// on s (its scenarios are skipped saying why), only an interrupted
// context is returned.
func (r *Runner) build(ctx context.Context, s *state) error {
	o := r.Opts
	r.logf("%s: building dataset (%d tables, %+v, %d setup workers) in namespace %s",
		s.c.Name(), o.Shape.Tables(), o.Shape, s.parallel, o.Namespace)
	bctx, cancel := r.setupContext(ctx, s)
	t0 := time.Now()
	s.d, s.setup = dataset.Build(bctx, s.c.Catalog(), o.Namespace, o.Shape, s.parallel, prefixed(o.Progress, s.c.Name()))
	s.setupDur += time.Since(t0)
	cancel()
	if s.setup != nil && s.d != nil && len(s.d.Namespaces) == 0 {
		s.d = nil // nothing was created, nothing to drop
	}
	if s.setup == nil && s.d.TablesErr != nil {
		r.logf("%s: tables could not be created: %v", s.c.Name(), s.d.TablesErr)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// cells are plan's measurements on states, one Cell per scenario.
func (r *Runner) cells(states []*state, plan []Scenario) []bench.Cell {
	measured := make([]bench.Cell, len(plan))
	for k, sc := range plan {
		cells := make([]*cell, len(states))
		measured[k] = bench.CellFuncs{
			StartFunc: func(context.Context) error {
				for i, s := range states {
					cells[i] = &cell{rec: results.NewRecorder(), params: maps.Clone(sc.Params), skip: s.stopped}
					if cells[i].params == nil {
						cells[i].params = map[string]any{}
					}
				}
				return nil
			},
			RoundFunc: func(ctx context.Context, round, i int) error {
				return r.round(ctx, sc, states[i], cells[i], round)
			},
			FinishFunc: func(context.Context) error {
				for i, s := range states {
					if err := r.emit(sc, s, cells[i]); err != nil {
						return err
					}
				}
				return nil
			},
		}
	}
	return measured
}

// planned returns the scenarios this run measures, in run order.
func (o Options) planned() []Scenario {
	var out []Scenario
	for _, sc := range o.withHistory(Plan(o.Threads)) {
		if sc.Kind == bench.KindOpen && o.Rate <= 0 {
			continue // open-loop scenarios run only at a requested rate
		}
		if o.Select.Selects(sc.Name) && o.runsSweep(sc) {
			out = append(out, sc)
		}
	}
	return out
}

// meets reports whether sc's requirements hold on s (the scenario will
// measure rather than be skipped), as round checks them.
func (r *Runner) meets(sc Scenario, s *state) bool {
	if sk, ok := competitors.As[competitors.Scoped](s.c); ok && sk.Runs(sc.Name) != "" {
		return false
	}
	_, unmet := firstUnmet(sc, r.env(sc, s, 0))
	return !unmet
}

// env is what round round of sc on s runs with.
func (r *Runner) env(sc Scenario, s *state, round int) *Env {
	// A sweep measures every round at every size: the rounds of later
	// sizes are numbered on, so the tables a round names are new.
	round += r.sizeIdx * max(r.Opts.Rounds, 1)
	env := &Env{Competitor: s.c, Dataset: s.d, SetupErr: s.setup, Opts: r.Opts, Threads: sc.Threads, Round: round, Target: s.t, created: &s.created}
	if s.setup != nil {
		env.Dataset = nil
	}
	return env
}

// firstUnmet returns the first of sc's requirements env does not meet.
func firstUnmet(sc Scenario, env *Env) (bench.Requirement, bool) {
	for _, need := range sc.Needs {
		if !need.Met(env) {
			return need, true
		}
	}
	return bench.Requirement{}, false
}

// Estimate says how long plan's timed phases take when plan[i] measures on
// runsOn[i] targets: the warm-ups and measured durations fixed by o, which
// a run cannot be shorter than. Count-based phases (latency scenarios,
// dataset setup, server warm-ups of JVM servers) come on top; the text
// says so.
func Estimate(plan []Scenario, runsOn []int, o Options) string {
	var timed time.Duration
	counted := 0
	for i, sc := range plan {
		n := time.Duration(runsOn[i] * max(o.Rounds, 1))
		if n == 0 {
			continue
		}
		switch {
		case sc.Kind == bench.KindThroughput, sc.Kind == bench.KindDurability && sc.Metric == results.OpsSec:
			timed += n * (min(o.Warmup, o.Duration) + o.Duration)
		case sc.Kind == bench.KindOpen:
			timed += n * (o.Warmup + o.Duration)
		default:
			timed += n * o.Warmup
			counted++
		}
	}
	return fmt.Sprintf("at least %s of timed phases, plus %d count-based scenarios (up to %d operations each) and the dataset setup",
		timed.Round(100*time.Millisecond), counted, max(o.LatencyOps, o.CreateOps))
}

// runsSweep reports whether sc runs in this run: every scenario but a
// sweep one in a quick run, which runs only with Full or when Select names
// it.
func (o Options) runsSweep(sc Scenario) bool {
	return !sc.Sweep || !o.Quick || o.Full || len(o.Select) > 0
}

// round measures one round of sc on s into c.
func (r *Runner) round(ctx context.Context, sc Scenario, s *state, c *cell, round int) error {
	if c.skip != "" {
		return nil
	}
	if len(r.Opts.ReadOnly) > 0 && !sc.ReadsOnly {
		c.skip = ReadOnlyWhy
		return nil
	}
	env := r.env(sc, s, round)
	if !r.Opts.Delay.applies(s.c.Name(), sc.Name) {
		env.Opts.Delay = TestDelay{}
	}
	if sk, ok := competitors.As[competitors.Scoped](s.c); ok {
		if c.skip = sk.Runs(sc.Name); c.skip != "" {
			return nil
		}
	}
	if need, unmet := firstUnmet(sc, env); unmet {
		c.skip = need.Why
		if need.Explain != nil {
			c.skip = need.Explain(env)
		}
		return nil
	}
	if r.Opts.Rounds > 1 {
		r.logf("%s: %s (round %d/%d)", s.c.Name(), sc.Name, round+1, r.Opts.Rounds)
	} else {
		r.logf("%s: %s", s.c.Name(), sc.Name)
	}
	if r.Opts.ServerCost.On {
		if c.server == nil {
			c.server = &serverTotals{}
		}
		ctx = withWindow(ctx, &serverWindows{meter: s.meter, wire: s.wire, split: s.split, acc: c.server})
	}
	var live *liveRun
	if r.Opts.Live != nil {
		ctx, live = r.Opts.Live.begin(ctx, s.c.Name(), sc.Name)
	}
	endAuth := c.auth.watch(s.c)
	out, err := sc.Run(ctx, env)
	endAuth()
	if reason, ok := skipped(err); ok {
		c.skip = reason
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", s.c.Name(), sc.Name, err)
	}
	m := out.M
	live.settle(m.Rec)
	c.rec.Merge(m.Rec)
	c.elapsed += m.Elapsed
	c.warmErrs += m.WarmupErrors
	if c.firstErr == nil {
		c.firstErr = m.FirstErr
	}
	p50, ops := math.NaN(), math.NaN()
	if m.Rec.Count() > 0 {
		p50 = float64(m.Rec.Percentile(50)) / 1e3
	}
	if m.Elapsed > 0 {
		ops = float64(m.Rec.Count()) / m.Elapsed.Seconds()
	}
	c.counters.Merge(m.Counters)
	c.countOps += m.CountedOps
	c.roundP50 = append(c.roundP50, p50)
	c.roundOps = append(c.roundOps, ops)
	c.measuredN++
	for k, v := range out.Params {
		c.params[k] = v
	}
	for k, v := range out.Measures {
		if c.measures == nil {
			c.measures = map[string]results.Measure{}
		}
		c.measures[k] = v
	}
	if d := env.Opts.Delay.Per; d > 0 {
		c.params["test_delay_us"] = float64(d) / 1e3 // an injected slowdown is never hidden
	}
	return nil
}

// emit writes the line of one scenario on one competitor.
func (r *Runner) emit(sc Scenario, s *state, c *cell) error {
	if c.skip != "" {
		rec := r.Run.Skipped(s.c.Name(), sc.Name, c.skip, r.params(s, sc.Params))
		r.describe(&rec, sc)
		rec.Threads = sc.Threads
		return r.Sink.Write(rec)
	}
	loop := results.Closed
	if sc.Kind == bench.KindOpen {
		loop = results.Open
	}
	rec := r.Run.Result(s.c.Name(), sc.Name, loop, sc.Threads, c.rec, c.elapsed, r.params(s, c.params))
	r.describe(&rec, sc)
	rec.Rounds = c.measuredN
	rec.RoundP50US = c.roundP50
	rec.RoundOpsSec = c.roundOps
	warm := c.warmErrs
	rec.WarmupErrors = &warm
	if cs := c.counters.PerOp(c.countOps); !cs.Empty() {
		rec.Counters = &cs
	}
	if sc.Name == ControlName && c.rec.Count() > 0 {
		p50 := float64(c.rec.Percentile(50)) / 1e3
		s.control = &p50
	}
	rec.ControlP50US = s.control
	for k, v := range c.measures {
		rec.SetMeasure(k, v.Value, v.Unit, v.Better)
	}
	if c.firstErr != nil {
		rec.FirstError = c.firstErr.Error()
	}
	c.auth.stamp(&rec)
	if r.Opts.ServerCost.On {
		c.server.stamp(&rec, c.countOps, s.meterWhy)
	}
	return r.Sink.Write(rec)
}

// describe stamps the scenario's registration data and its level on its
// line.
func (r *Runner) describe(rec *results.Record, sc Scenario) {
	bench.Stamp(rec, sc.Scenario, bench.Level{bench.DimThreads: float64(sc.Threads)})
	rec.Control = sc.Control
	if r.size > 0 {
		if rec.Dims == nil {
			rec.Dims = results.Dims{}
		}
		rec.Dims[results.DimTables] = float64(r.size)
	}
}

// cleanup drops what the run created unless the competitor's storage is
// thrown away anyway, then closes it. It runs on a context of its own, so
// an interrupted or failed run still leaves nothing behind.
func (r *Runner) cleanup(s *state) error {
	var err error
	if eph, ok := competitors.As[competitors.Ephemeral](s.c); (!ok || !eph.Ephemeral()) && s.d != nil && !s.d.Given() {
		r.logf("%s: dropping the dataset", s.c.Name())
		parent := r.Opts.Cleanup
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithTimeout(parent, cleanupTimeout)
		err = s.d.Drop(ctx, s.c.Catalog(), s.created.list(), s.parallel, prefixed(r.Opts.Progress, s.c.Name()))
		cancel()
		switch {
		case err != nil && parent.Err() != nil:
			err = fmt.Errorf("clean up %s: stopped by a second interrupt; what the run created there is left (under its root namespace %s): %w", s.c.Name(), strings.Join(s.d.Root, "."), err)
		case err != nil:
			err = fmt.Errorf("clean up %s: %w", s.c.Name(), err)
		}
	}
	return errors.Join(err, s.c.Close())
}

func (r *Runner) params(s *state, extra map[string]any) map[string]any {
	o := r.Opts
	p := map[string]any{
		"quick":           o.Quick,
		"shape":           o.Shape,
		"durability":      orDefault(s.t.Config.Durability, "immediate"),
		"warmup_s":        o.Warmup.Seconds(),
		"server_warmup_s": s.warmed.Seconds(),
		"setup_parallel":  s.parallel,
		"preceded_by":     r.preceded(s),
	}
	if s.d != nil {
		p["tables"] = len(s.d.Tables)
	}
	if len(o.Sizes) > 0 {
		p["sweep_tables"] = o.Sizes
		p["setup_s"] = s.setupDur.Seconds()
		if s.bulk {
			p["setup_path"] = "bulk"
		}
		if r.size > 0 {
			p["shape"] = dataset.SweepShape(o.Sizes, r.size, o.PerNamespace)
		}
	}
	for k, v := range s.c.Params() {
		p[k] = v
	}
	for k, v := range o.Extra {
		p[k] = v
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// preceded lists what ran on the competitor before any scenario was
// measured, in order: the dataset build and the server warm-up.
func (r *Runner) preceded(s *state) []string {
	var out []string
	if s.d != nil {
		out = append(out, "dataset")
	}
	if s.warmed > 0 {
		out = append(out, "server_warmup")
	}
	return out
}

func (r *Runner) logf(format string, args ...any) {
	if r.Opts.Log != nil {
		fmt.Fprintf(r.Opts.Log, format+"\n", args...)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// reportElapsed reports a timed phase to p once a second, in whole
// seconds of total, until the returned stop is called (which reports it
// complete). A nil p reports nothing.
func reportElapsed(p bench.Progress, what string, total time.Duration) (stop func()) {
	if p == nil {
		return func() {}
	}
	tick := time.NewTicker(time.Second)
	start := time.Now()
	stopReports := reportElapsedOn(p, what, total, tick.C, func() time.Duration { return time.Since(start) })
	return func() {
		stopReports()
		tick.Stop()
	}
}

// reportElapsedOn is reportElapsed with its clock given: it reports
// elapsed() on every value from ticks, as whole seconds below total, and
// stops taking ticks once stop returns.
func reportElapsedOn(p bench.Progress, what string, total time.Duration, ticks <-chan time.Time, elapsed func() time.Duration) (stop func()) {
	secs := max(int(total.Round(time.Second)/time.Second), 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	p(what, 0, secs)
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-ticks:
				p(what, min(int(elapsed()/time.Second), secs-1), secs)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		p(what, secs, secs)
	}
}

// prefixed names the target in progress reports.
func prefixed(p bench.Progress, target string) bench.Progress {
	if p == nil {
		return nil
	}
	return func(what string, done, total int) { p(target+": "+what, done, total) }
}
