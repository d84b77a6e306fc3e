package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/disturb"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/servercost"
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
	cost                        servercost.Settings
}

func (f *benchFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.s.RegisterFlags(fl, os.Getenv)
	f.storage.RegisterFlags(fl)
	f.cost.RegisterFlags(fl)
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
	b, err := lifecycle.New(lifecycle.Settings{Command: commandLine(), AllowErrors: f.allowErrs, Format: f.format, History: f.history, Label: f.label},
		cmd.OutOrStdout(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	opts, neighbour, err := f.options(cmd, b.Run)
	if err != nil {
		return err
	}
	serveChild, err := applyServerCost(f.cost, &opts)
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
		stopMetrics, merr := lifecycle.ServeMetrics(f.metricsAddr, live, cmd.ErrOrStderr())
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
	opts.Log, opts.Progress = b.Progress, b.Update
	st, err := f.storage.Resolve(cmd.Context(), os.Getenv, transportSettings, b.Progress)
	if err != nil {
		return err
	}
	dir, err := b.WorkDir(f.dir)
	if err != nil {
		return err
	}
	base := competitors.Config{Durability: opts.Durability, Props: props, Log: b.Progress, ServeChild: serveChild}
	targets, err := scenarios.NewTargets(specs, factories, dir, base, st, os.Getenv)
	if err != nil {
		return err
	}
	if err := b.Open(cmd.Context()); err != nil {
		return err
	}
	sink, stopNeighbour, err := disturb.WithNeighbour(b.Ctx, neighbour, dir, b.Sink)
	if err != nil {
		return err
	}
	opts.Cleanup = b.Cleanup
	r := &scenarios.Runner{Run: b.Run, Sink: sink, Opts: opts}
	err = scenarios.StopReason(b.Ctx, errors.Join(r.Execute(b.Ctx, targets), stopNeighbour()))
	// The temp dir goes before the table is printed (its removal reports progress).
	return errors.Join(err, b.RemoveWorkDir())
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
