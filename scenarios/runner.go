package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// Target is one competitor to run: its factory and the config to build it.
type Target struct {
	Factory competitors.Factory
	Config  competitors.Config
}

// Options shape a run. Zero values are filled by Defaults.
type Options struct {
	Quick      bool
	Shape      Shape
	Namespace  string        // root namespace of the dataset (unique per run)
	LatencyOps int           // recorded operations per latency scenario
	CreateOps  int           // recorded creates (and commits) per scenario
	Warmup     time.Duration // unrecorded warm-up before each scenario
	// ServerWarmup is a one-time warm-up of each competitor after its
	// dataset is built and before its first scenario, so a JVM server's JIT
	// has settled. Negative means the competitor's own WarmupHint (0 for
	// competitors without one).
	ServerWarmup time.Duration
	Duration     time.Duration // measured time per throughput level
	Threads      []int         // throughput levels
	Parallel     int           // workers for dataset setup and cleanup
	Select       Selector
	// Durability is the mode the competitors run in (params only; the
	// factory config carries it).
	Durability string
	// Log receives one status line per phase; Progress receives setup
	// progress. Either may be nil.
	Log      io.Writer
	Progress Progress
}

// Defaults returns the options of a full run (quick=false) or a --quick run.
func Defaults(quick bool) Options {
	if quick {
		return Options{Quick: true, Shape: ShapeFor(200), LatencyOps: 2000, CreateOps: 200,
			Warmup: 300 * time.Millisecond, ServerWarmup: -1, Duration: time.Second, Threads: DefaultThreads, Parallel: 4}
	}
	return Options{Shape: ShapeFor(10_000), LatencyOps: 20_000, CreateOps: 1000,
		Warmup: 2 * time.Second, ServerWarmup: -1, Duration: 5 * time.Second, Threads: DefaultThreads, Parallel: 4}
}

// Runner drives targets through the scenarios and writes one record per
// (target, scenario) to Sink. A Runner is used by one goroutine.
type Runner struct {
	Run  *results.Run
	Sink results.Sink
	Opts Options
}

// state is one live competitor during a run.
type state struct {
	t       Target
	c       competitors.Competitor
	d       *Dataset
	setup   error // why the dataset could not be built
	control *float64
	created []table.Identifier // tables made by create/commit scenarios
	warmup  time.Duration      // the one-time server warm-up it got
}

// Execute runs every selected scenario on every target, one target after
// another per scenario, then the durability sweep, then cleans up. A target
// that cannot be built fails the run before anything is measured; a
// scenario that fails is a line with errors, never an abort.
func (r *Runner) Execute(ctx context.Context, targets []Target) (err error) {
	o := r.Opts
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
		s := &state{t: t, c: c, warmup: o.ServerWarmup}
		if s.warmup < 0 {
			s.warmup = 0
			if h, ok := competitors.As[competitors.WarmupHinter](c); ok {
				s.warmup = h.WarmupHint()
			}
		}
		states = append(states, s)
	}
	for _, s := range states {
		if ctl, ok := competitors.As[competitors.Controller](s.c); ok {
			m := Latency(ctx, controlOp(ctl), o.Warmup, 10, 1<<20, o.LatencyOps)
			if m.Rec.Count() > 0 {
				p50 := float64(m.Rec.Percentile(50)) / 1e3
				s.control = &p50
			}
			if err := r.emit(s, Control, 1, m, nil); err != nil {
				return err
			}
		} else if o.Select.Selects(Control) {
			if err := r.skip(s, Control, "competitor has no control round trip"); err != nil {
				return err
			}
		}
	}
	for _, s := range states {
		r.logf("%s: building dataset (%d tables, %+v) in namespace %s", s.c.Name(), o.Shape.Tables(), o.Shape, o.Namespace)
		s.d, s.setup = Build(ctx, s.c.Catalog(), o.Namespace, o.Shape, o.Parallel, prefixed(o.Progress, s.c.Name()))
		if s.setup == nil && s.d.TablesErr != nil {
			r.logf("%s: tables could not be created: %v", s.c.Name(), s.d.TablesErr)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.setup == nil && s.warmup > 0 {
			r.logf("%s: warming the server up for %v (JIT settling; --server-warmup)", s.c.Name(), s.warmup)
			stop := reportElapsed(prefixed(o.Progress, s.c.Name()), "server warm-up (s)", s.warmup)
			Throughput(ctx, warmOp(s.c, s.d), 4, 0, s.warmup)
			stop()
		}
	}
	for _, name := range Names(o.Threads) {
		if name == Control || strings.HasPrefix(name, DurabilityPrefix) || !o.Select.Selects(name) {
			continue
		}
		for _, s := range states {
			if err := r.scenario(ctx, s, name); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	for _, s := range states {
		if err := r.sweep(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// scenario runs one named scenario on one competitor.
func (r *Runner) scenario(ctx context.Context, s *state, name string) error {
	o := r.Opts
	if s.setup != nil {
		return r.skip(s, name, "dataset setup failed: "+s.setup.Error())
	}
	needTables := name != TableExists
	if needTables && len(s.d.Tables) == 0 {
		return r.skip(s, name, "no tables: "+errText(s.d.TablesErr))
	}
	r.logf("%s: %s", s.c.Name(), name)
	minW, maxW := 10, 10*o.LatencyOps+1000
	switch {
	case name == LoadTable:
		return r.emit(s, name, 1, Latency(ctx, loadOp(s.c, s.d, o.LatencyOps), o.Warmup, minW, maxW, o.LatencyOps), nil)
	case name == ResolveMetadata:
		res, ok := competitors.As[competitors.MetadataResolver](s.c)
		if !ok {
			return r.skip(s, name, "competitor cannot resolve metadata without loading a table")
		}
		return r.emit(s, name, 1, Latency(ctx, resolveOp(res, s.d, o.LatencyOps), o.Warmup, minW, maxW, o.LatencyOps), nil)
	case name == TableExists:
		hit := 0.5
		if len(s.d.Tables) == 0 {
			hit = 0
		}
		return r.emit(s, name, 1, Latency(ctx, existsOp(s.c, s.d, o.LatencyOps), o.Warmup, minW, maxW, o.LatencyOps),
			map[string]any{"hit_ratio": hit})
	case strings.HasPrefix(name, ThroughputPrefix):
		var t int
		fmt.Sscanf(strings.TrimPrefix(name, ThroughputPrefix), "t%d", &t)
		warm := min(o.Warmup, o.Duration)
		m := Throughput(ctx, loadOp(s.c, s.d, 1<<16), t, warm, o.Duration)
		return r.emit(s, name, t, m, nil)
	case name == CreateTable:
		m := Latency(ctx, createOp(s.c, s.d.Work, "create", &s.created), o.Warmup, 5, 2*o.CreateOps+100, o.CreateOps)
		return r.emit(s, name, 1, m, nil)
	case name == CommitTable:
		return r.commit(ctx, s)
	}
	return fmt.Errorf("scenario %s: not implemented", name)
}

// commit measures set-properties commits on tables made for it, so the
// dataset's metadata is not grown by the commits.
func (r *Runner) commit(ctx context.Context, s *state) error {
	cat := s.c.Catalog()
	var tables []table.Identifier
	var uuids []uuid.UUID
	for i := range 16 {
		id := append(append(table.Identifier{}, s.d.Work...), fmt.Sprintf("commit_%02d", i))
		tbl, err := cat.CreateTable(ctx, id, Schema)
		if err != nil {
			return r.skip(s, CommitTable, "create commit tables: "+err.Error())
		}
		s.created = append(s.created, id)
		tables = append(tables, id)
		uuids = append(uuids, tbl.Metadata().TableUUID())
	}
	o := r.Opts
	m := Latency(ctx, commitOp(s.c, tables, uuids), o.Warmup, 5, 2*o.CreateOps+100, o.CreateOps)
	return r.emit(s, CommitTable, 1, m, map[string]any{"commit_tables": len(tables)})
}

// sweep measures create_table once per durability mode on fresh competitors
// of a factory that honours modes.
func (r *Runner) sweep(ctx context.Context, s *state) error {
	o := r.Opts
	for _, mode := range DurabilityModes {
		name := DurabilityPrefix + mode
		if !o.Select.Selects(name) {
			continue
		}
		if !s.t.Factory.Durability {
			if err := r.skip(s, name, "competitor has no durability modes"); err != nil {
				return err
			}
			continue
		}
		r.logf("%s: %s", s.c.Name(), name)
		cfg := s.t.Config
		cfg.Durability = mode
		cfg.Dir = filepath.Join(s.t.Config.Dir, "durability-"+mode)
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return fmt.Errorf("durability sweep %s: %w", mode, err)
		}
		c, err := s.t.Factory.New(ctx, cfg)
		if err != nil {
			if err := r.skip(s, name, "start: "+err.Error()); err != nil {
				return err
			}
			continue
		}
		ns := table.Identifier{o.Namespace}
		var created []table.Identifier
		err = c.Catalog().CreateNamespace(ctx, ns, nil)
		if err == nil {
			m := Latency(ctx, createOp(c, ns, "sweep", &created), o.Warmup, 5, 2*o.CreateOps+100, o.CreateOps)
			err = r.emitFor(s, c, name, 1, m, map[string]any{"durability": mode})
		} else {
			err = r.skip(s, name, "create namespace: "+err.Error())
		}
		if eph, ok := competitors.As[competitors.Ephemeral](c); !ok || !eph.Ephemeral() {
			d := &Dataset{Namespaces: []table.Identifier{ns}}
			err = errors.Join(err, d.Drop(ctx, c.Catalog(), created, o.Parallel, nil))
		}
		err = errors.Join(err, c.Close())
		if err != nil {
			return err
		}
	}
	return nil
}

// cleanup drops what the run created unless the competitor's storage is
// thrown away anyway, then closes it.
func (r *Runner) cleanup(s *state) error {
	var err error
	if eph, ok := competitors.As[competitors.Ephemeral](s.c); (!ok || !eph.Ephemeral()) && s.d != nil {
		r.logf("%s: dropping the dataset", s.c.Name())
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		err = s.d.Drop(ctx, s.c.Catalog(), s.created, r.Opts.Parallel, prefixed(r.Opts.Progress, s.c.Name()))
		cancel()
		if err != nil {
			err = fmt.Errorf("clean up %s: %w", s.c.Name(), err)
		}
	}
	return errors.Join(err, s.c.Close())
}

func (r *Runner) params(s *state, c competitors.Competitor, extra map[string]any) map[string]any {
	o := r.Opts
	p := map[string]any{
		"quick":           o.Quick,
		"shape":           o.Shape,
		"durability":      orDefault(s.t.Config.Durability, "immediate"),
		"warmup_s":        o.Warmup.Seconds(),
		"server_warmup_s": s.warmup.Seconds(),
	}
	if s.d != nil {
		p["tables"] = len(s.d.Tables)
	}
	for k, v := range c.Params() {
		p[k] = v
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func (r *Runner) emit(s *state, name string, threads int, m Measurement, extra map[string]any) error {
	return r.emitFor(s, s.c, name, threads, m, extra)
}

func (r *Runner) emitFor(s *state, c competitors.Competitor, name string, threads int, m Measurement, extra map[string]any) error {
	if !r.Opts.Select.Selects(name) {
		return nil
	}
	rec := r.Run.Result(s.c.Name(), name, results.Closed, threads, m.Rec, m.Elapsed, r.params(s, c, extra))
	rec.ControlP50US = s.control
	if m.FirstErr != nil {
		rec.FirstError = m.FirstErr.Error()
	}
	return r.Sink.Write(rec)
}

func (r *Runner) skip(s *state, name, reason string) error {
	rec := r.Run.Skipped(s.c.Name(), name, reason, r.params(s, s.c, nil))
	return r.Sink.Write(rec)
}

func (r *Runner) logf(format string, args ...any) {
	if r.Opts.Log != nil {
		fmt.Fprintf(r.Opts.Log, format+"\n", args...)
	}
}

func errText(err error) string {
	if err == nil {
		return "none were created"
	}
	return err.Error()
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
func reportElapsed(p Progress, what string, total time.Duration) (stop func()) {
	secs := max(int(total.Round(time.Second)/time.Second), 1)
	if p == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	p(what, 0, secs)
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				p(what, min(int(time.Since(start)/time.Second), secs-1), secs)
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
func prefixed(p Progress, target string) Progress {
	if p == nil {
		return nil
	}
	return func(what string, done, total int) { p(target+": "+what, done, total) }
}
