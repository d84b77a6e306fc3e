package main

import (
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/disturb"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios"
)

// benchFlags are the flags every benchmark command shares: the run's
// scenarios.Settings and what cmd itself handles (output, directories,
// client properties, storage).
type benchFlags struct {
	s                           scenarios.Settings
	dir, history, label, format string
	cpuProfile                  string
	metricsAddr                 string
	allowErrs                   bool
	props                       []string
	storage                     workspace.StorageSettings
	cost                        serverCostFlags
}

func (f *benchFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.s.RegisterFlags(fl, os.Getenv)
	f.storage.RegisterFlags(fl)
	f.cost.register(fl)
	fl.StringVar(&f.dir, "dir", "", "keep catalogs and warehouses under this directory (default: a temp dir removed after the run)")
	fl.StringVar(&f.history, "history", "", "also append result lines to this file (none by default; the README's runs are recorded with --history bench_history.jsonl)")
	results.RegisterLabelFlag(fl, &f.label)
	fl.BoolVar(&f.allowErrs, "allow-errors", false, "exit 0 even when operations failed (recorded on every line as allow_errors)")
	fl.StringVar(&f.format, "format", "auto", output.FormatHelp)
	fl.StringArrayVar(&f.props, "prop", nil, "client property k=v for REST competitors (repeatable; adds to BENCH_REST_PROPS)")
	fl.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the measured operations (per target and scenario: operations, errors, a latency histogram) at http://HOST:PORT/metrics while the run runs")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured scenarios (after the datasets are built and warmed; go tool pprof) to this file")
}

// options turns flags (and the environment's KATBENCH_TEST_DELAY_US and
// JOB_COMPLETION_INDEX) into runner options and the neighbour's config,
// rejecting bad values before anything is created.
func (f *benchFlags) options(cmd *cobra.Command, run *results.Run) (scenarios.Options, disturb.NeighbourConfig, error) {
	if err := output.CheckFormat(f.format); err != nil {
		return scenarios.Options{}, disturb.NeighbourConfig{}, err
	}
	s := f.s
	s.FromFlags(cmd.Flags())
	s.Shard.JobIndex = os.Getenv("JOB_COMPLETION_INDEX")
	d, err := scenarios.ParseTestDelay(os.Getenv(envTestDelay))
	if err != nil {
		return scenarios.Options{}, disturb.NeighbourConfig{}, usagef("%s=%v", envTestDelay, err)
	}
	s.Delay = d
	o, err := s.Options(run.ID)
	if err != nil {
		return o, disturb.NeighbourConfig{}, err
	}
	nb, err := s.Background.Config()
	return o, nb, err
}

// parseTargets parses every argument of a multi-target command.
func parseTargets(args []string) []scenarios.TargetSpec {
	specs := make([]scenarios.TargetSpec, len(args))
	for i, a := range args {
		specs[i] = scenarios.ParseTargetSpec(a)
	}
	return specs
}

// runBench is the body of `katbench run` and of every single-target command.
func runBench(cmd *cobra.Command, f *benchFlags, given []scenarios.TargetSpec) (err error) {
	run := results.NewRun()
	run.Command, run.AllowErrors = commandLine(), f.allowErrs
	opts, neighbour, err := f.options(cmd, run)
	if err != nil {
		return err
	}
	serveChild, err := f.cost.apply(&opts)
	if err != nil {
		return err
	}
	specs, factories, err := scenarios.LookupTargets(given, opts)
	if err != nil {
		return err
	}
	if err := scenarios.CheckDisk(opts, f.dir, len(given)); err != nil {
		return err
	}
	props, err := scenarios.ParseProps(f.props)
	if err != nil {
		return err
	}
	if f.metricsAddr != "" {
		live := scenarios.NewLiveMetrics()
		stopMetrics, merr := serveMetrics(f.metricsAddr, live, cmd.ErrOrStderr())
		if merr != nil {
			return merr
		}
		defer stopMetrics()
		opts.Live = live
	}
	if f.cpuProfile != "" {
		prof, perr := output.CreateCPUProfile(f.cpuProfile)
		if perr != nil {
			return asUsage(perr)
		}
		defer func() { err = errors.Join(err, prof.Close()) }()
		opts.Measuring = prof.Start // the measured phase only, not the datasets' setup
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	format := output.ResolveFormat(f.format, stdout)
	prog := output.NewProgress(stderr, output.UseBars(stderr, stdout, format))
	opts.Log, opts.Progress = prog, prog.Update
	st, err := f.storage.Resolve(cmd.Context(), os.Getenv, transportSettings, prog)
	if err != nil {
		return err
	}
	dir, removeDir, err := workspace.WorkDir(f.dir)
	if err != nil {
		return err
	}
	// The temp dir goes before the table is printed (its removal reports
	// progress), and on every early return too.
	cleanDir := func() error {
		if !removeDir {
			return nil
		}
		removeDir = false
		return workspace.RemoveTree(dir, prog.Update)
	}
	defer func() {
		err = errors.Join(err, cleanDir())
		prog.Close()
	}()
	base := competitors.Config{Durability: opts.Durability, Props: props, Log: prog, ServeChild: serveChild}
	targets, err := scenarios.NewTargets(specs, factories, dir, base, st, os.Getenv)
	if err != nil {
		return err
	}
	out, err := output.NewResults(format, f.history, stdout, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var lines results.Collector
	sink, stopNeighbour, err := disturb.WithNeighbour(ctx, neighbour, dir, results.Tee{out.Sink(f.label), &lines})
	if err != nil {
		return errors.Join(err, out.Close())
	}
	r := &scenarios.Runner{Run: run, Sink: sink, Opts: opts}
	err = scenarios.StopReason(ctx, errors.Join(r.Execute(ctx, targets), stopNeighbour()))
	err = errors.Join(err, cleanDir())
	prog.Close() // the last bar is drawn before any table
	// A line with failed operations turns the run red (exit 1).
	return errors.Join(err, out.Close(), results.CheckErrors(lines.Snapshot()))
}

func init() {
	var f benchFlags
	runCmd := &cobra.Command{
		Use:   "run TARGET [TARGET...]",
		Short: "Run the scenarios on several competitors side by side",
		Long: `Run the shared scenarios on every TARGET in one process, one after another
per scenario, and print one JSON line per (target, scenario). The table shows
each target's ratio to the first.

A TARGET is a competitor name (see 'katbench list'), optionally with its
endpoint: name=URL or name=URL@WAREHOUSE (e.g. nessie=http://localhost:19120/iceberg@warehouse).`,
		Example: `  katbench run embedded sql --quick
  katbench run embedded rest grpc --quick --format table
  eval "$(containers/nessie_up.sh)"; katbench run rest nessie --quick`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBench(cmd, &f, parseTargets(args)) },
	}
	f.register(runCmd)
	rootCmd.AddCommand(runCmd)

	// One command per competitor: `katbench embedded`, `katbench nessie URL WAREHOUSE`, …
	for _, fac := range competitors.All() {
		var ff benchFlags
		var peer string
		name := fac.Name
		c := &cobra.Command{
			Use:     strings.TrimSpace(name + " " + fac.Usage),
			Short:   "Benchmark " + fac.Description,
			Long:    fac.Long(),
			Example: fac.Example,
			Args:    cobra.MaximumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				if !fac.Storage && cmd.Flags().Changed("warehouse") {
					return usagef("--warehouse is the embedded catalog's warehouse URI and does not apply to %s; "+
						"its server's warehouse is the argument after the URL: katbench %s", name, strings.TrimSpace(name+" "+fac.Usage))
				}
				specs := []scenarios.TargetSpec{{Name: name, Args: args}}
				if peer != "" && peer != name {
					specs = append(specs, scenarios.TargetSpec{Name: peer})
				}
				return runBench(cmd, &ff, specs)
			},
		}
		ff.register(c)
		c.Flags().StringVar(&peer, "peer", fac.Peer, "competitor run beside this one for comparison ('' for none)")
		for _, name := range fac.UnusedFlags() { // hidden from help; they still parse, so old command lines keep working
			_ = c.Flags().MarkHidden(name) // registered above: never an error
		}
		rootCmd.AddCommand(c)
	}
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
}
