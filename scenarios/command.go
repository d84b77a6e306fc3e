package scenarios

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/disturb"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/servercost"
	"github.com/nordisk/katbench/internal/workspace"
)

// EnvTestDelay injects a fixed per-operation slowdown, for measuring how
// well compare and ab find one (ParseTestDelay): "US" slows every
// target's scenarios by US microseconds, "TARGET:US" only TARGET's. The
// control scenario is never slowed, and every slowed line says so
// (params.test_delay_us).
const EnvTestDelay = "KATBENCH_TEST_DELAY_US"

// EnvJobIndex is the scheduler's worker index of a distributed run (a
// Kubernetes Indexed Job sets it): ShardSettings.JobIndex.
const EnvJobIndex = "JOB_COMPLETION_INDEX"

// Command is a benchmark command — `katbench run`, one command per
// competitor, `katbench capacity` — as its flags give it: the run's
// Settings and what the command around the Runner takes (output,
// directories, client properties, storage, server cost). Register its
// flags with RegisterFlags, then Run it once. Not safe for concurrent use.
type Command struct {
	Settings
	Output      lifecycle.Output
	Dir         string   // --dir: catalogs and warehouses ("" for a temp dir)
	CPUProfile  string   // --cpuprofile file of the measured phase
	MetricsAddr string   // --metrics-addr HOST:PORT of live Prometheus metrics
	AllowErrors bool     // --allow-errors
	Props       []string // --prop k=v client properties
	Storage     workspace.StorageSettings
	Cost        servercost.Settings
}

// RegisterFlags adds the command's flags to fl, each filling its field;
// getenv gives the defaults the environment sets (Settings.RegisterFlags).
func (c *Command) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	c.Settings.RegisterFlags(fl, getenv)
	c.Storage.RegisterFlags(fl)
	c.Cost.RegisterFlags(fl)
	fl.StringVar(&c.Dir, "dir", "", "keep catalogs and warehouses under this directory (default: a temp dir removed after the run)")
	c.Output.RegisterFlags(fl, lifecycle.HistoryUse)
	fl.BoolVar(&c.AllowErrors, "allow-errors", false, "exit 0 even when operations failed (recorded on every line as allow_errors)")
	fl.StringArrayVar(&c.Props, "prop", nil, "client property k=v for REST competitors (repeatable; adds to BENCH_REST_PROPS)")
	fl.StringVar(&c.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics of the measured operations (per target and scenario: operations, errors, a latency histogram) at http://HOST:PORT/metrics while the run runs")
	fl.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the measured scenarios (after the datasets are built and warmed; go tool pprof) to this file")
}

// options turns the settings (fl parsed) and p's KATBENCH_TEST_DELAY_US
// and JOB_COMPLETION_INDEX into runner options and the neighbour's
// config, rejecting bad values before anything is created.
func (c *Command) options(fl *pflag.FlagSet, p lifecycle.Process, runID string) (Options, disturb.NeighbourConfig, error) {
	s := c.Settings
	s.FromFlags(fl)
	s.Shard.JobIndex = p.Getenv(EnvJobIndex)
	d, err := ParseTestDelay(p.Getenv(EnvTestDelay))
	if err != nil {
		return Options{}, disturb.NeighbourConfig{}, settingsf("%s=%v", EnvTestDelay, err)
	}
	s.Delay = d
	o, err := s.Options(runID)
	if err != nil {
		return o, disturb.NeighbourConfig{}, err
	}
	nb, err := s.Background.Config()
	return o, nb, err
}

// serverCost puts the server-cost settings into o and returns the
// competitors' Config.ServeChild: serveChild when the cost is measured
// (our fronts then serve from a child process whose CPU is read).
func (c *Command) serverCost(o *Options, serveChild []string) ([]string, error) {
	pids, err := c.Cost.Check()
	if err != nil || !c.Cost.On {
		return nil, err
	}
	o.ServerCost = ServerCost{On: true, PIDs: pids, MetricsURL: c.Cost.MetricsURL}
	return serveChild, nil
}

// Run runs the scenarios (or the mix, or the capacity search) on the
// targets given, with fl the parsed flags of c, in the process p: every
// input is checked before anything is created; the lines go out through
// the command's lifecycle (package lifecycle), whose exit rule decides
// the error.
func (c *Command) Run(ctx context.Context, fl *pflag.FlagSet, p lifecycle.Process, given []TargetSpec) (err error) {
	b, err := p.Bench(lifecycle.Settings{Output: c.Output, AllowErrors: c.AllowErrors})
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	opts, neighbour, err := c.options(fl, p, b.Run.ID)
	if err != nil {
		return err
	}
	serveChild, err := c.serverCost(&opts, p.ServeChild)
	if err != nil {
		return err
	}
	specs, factories, err := LookupTargets(given, opts)
	if err != nil {
		return err
	}
	if err := CheckDisk(opts, c.Dir, len(given)); err != nil {
		return err
	}
	props, err := ParseProps(c.Props)
	if err != nil {
		return err
	}
	if c.MetricsAddr != "" {
		live := NewLiveMetrics()
		stopMetrics, merr := lifecycle.ServeMetrics(c.MetricsAddr, live, p.Stderr)
		if merr != nil {
			return merr
		}
		defer stopMetrics()
		opts.Live = live
	}
	if c.CPUProfile != "" {
		prof, perr := output.CreateCPUProfile(c.CPUProfile)
		if perr != nil {
			return settingsErr(perr)
		}
		defer func() { err = errors.Join(err, prof.Close()) }()
		opts.Measuring = prof.Start // the measured phase only, not the datasets' setup
	}
	opts.Log, opts.Progress = b.Progress, b.Update
	st, err := c.Storage.Resolve(ctx, p.Getenv, p.Transport, b.Progress)
	if err != nil {
		return err
	}
	dir, err := b.WorkDir(c.Dir)
	if err != nil {
		return err
	}
	if selectsWrites(opts) {
		if note := workspace.FileSystemNote(dir); note != "" {
			fmt.Fprintln(b.Progress, note)
		}
	}
	base := competitors.Config{Durability: opts.Durability, Props: props, Log: b.Progress, ServeChild: serveChild}
	targets, err := NewTargets(specs, factories, dir, base, st, p.Getenv)
	if err != nil {
		return err
	}
	if err := b.Open(ctx); err != nil {
		return err
	}
	sink, stopNeighbour, err := disturb.WithNeighbour(b.Ctx, neighbour, dir, b.Sink)
	if err != nil {
		return err
	}
	opts.Cleanup = b.Cleanup
	r := &Runner{Run: b.Run, Sink: sink, Opts: opts}
	err = StopReason(b.Ctx, errors.Join(r.Execute(b.Ctx, targets), stopNeighbour()))
	// The temp dir goes before the table is printed (its removal reports progress).
	return errors.Join(err, b.RemoveWorkDir())
}
