package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// benchFlags are the flags every benchmark command shares.
type benchFlags struct {
	quick      bool
	full       bool
	tables     int
	duration   time.Duration
	warmup     time.Duration
	serverWarm string
	threads    string
	durability string
	dir        string
	scenario   string
	history    string
	label      string
	format     string
	namespace  string
	// namespaceSet: --namespace was given (an explicit '' is a usage error).
	namespaceSet bool
	latencyOps   int
	createOps    int
	parallel     int
	rounds       int
	viewsPerLeaf int
	allowErrs    bool
	props        []string
	storage      storageFlags
	shard        shardFlags
	rate         rateFlags
	mix          mixFlags
	snaps        historyFlags
}

func (f *benchFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.quick, "quick", os.Getenv("BENCH_QUICK") == "1", "smoke run: small dataset (200 tables), short phases, threads 1,4, no durability throughput sweep; env BENCH_QUICK=1")
	fl.BoolVar(&f.full, "full", false, "with --quick: still run every thread level (1..32) and the durability throughput sweep")
	fl.IntVar(&f.tables, "tables", 0, "tables in the dataset (default 200 with --quick, 10000 otherwise)")
	fl.DurationVar(&f.duration, "duration", 0, "measured time per throughput level (default 500ms with --quick, 5s otherwise)")
	fl.DurationVar(&f.warmup, "warmup", 0, "unrecorded warm-up before each scenario (default 200ms with --quick, 2s otherwise; JVM servers ask for more)")
	fl.StringVar(&f.serverWarm, "server-warmup", "auto", "one-time warm-up of each server before its first scenario; 'auto' = what the competitor asks for (30s for JVM servers: Nessie, Polaris, the fixture; 0 otherwise)")
	fl.StringVar(&f.threads, "threads", "", "throughput levels, comma-separated (default 1,4 with --quick and no --scenario, 1,2,4,8,16,32 otherwise)")
	fl.StringVar(&f.durability, "durability", os.Getenv("BENCH_DURABILITY"), "embedded catalog durability: immediate|eventual|none; env BENCH_DURABILITY")
	fl.StringVar(&f.dir, "dir", "", "keep catalogs and warehouses under this directory (default: a temp dir removed after the run)")
	fl.StringVar(&f.scenario, "scenario", "", "run only scenarios matching these globs, comma-separated (e.g. 'load_table.*')")
	fl.StringVar(&f.history, "history", "", "also append result lines to this file (none by default; the README's runs are recorded with --history bench_history.jsonl)")
	registerLabel(fl, &f.label)
	fl.BoolVar(&f.allowErrs, "allow-errors", false, "exit 0 even when operations failed (recorded on every line as allow_errors)")
	fl.StringVar(&f.format, "format", "auto", formatHelp)
	fl.StringVar(&f.namespace, "namespace", "", "root namespace of the dataset (default katbench_<run id>)")
	fl.IntVar(&f.latencyOps, "ops", 0, "recorded operations per latency scenario (default 1000 with --quick, 20000 otherwise)")
	fl.IntVar(&f.createOps, "create-ops", 0, "recorded creates and commits per scenario (default 100 with --quick, 1000 otherwise)")
	fl.IntVar(&f.parallel, "setup-parallel", 4, "workers creating and dropping the dataset (fewer where the competitor asks for fewer)")
	fl.IntVar(&f.rounds, "rounds", 1, "measure each scenario this many times per target, interleaved round by round (A B C, C B A, …); lines keep per-round p50 and ops/s")
	fl.IntVar(&f.viewsPerLeaf, "views-per-leaf", 0, "views per leaf namespace made for the view scenarios (default 2 with --quick, 10 otherwise)")
	fl.StringArrayVar(&f.props, "prop", nil, "client property k=v for REST competitors (repeatable; adds to BENCH_REST_PROPS)")
	f.storage.register(fl)
	f.shard.register(fl)
	f.rate.register(fl)
	f.mix.register(fl)
	f.snaps.register(fl)
}

// options turns flags into runner options, rejecting bad values before
// anything is created.
func (f *benchFlags) options(run *results.Run) (scenarios.Options, error) {
	o := scenarios.Defaults(f.quick)
	if !validFormatName(f.format) {
		return o, usagef("--format %q: want auto, jsonl or table", f.format)
	}
	if f.tables < 0 {
		return o, usagef("--tables %d: must be positive", f.tables)
	}
	if f.tables > 0 {
		o.Shape = scenarios.ShapeFor(f.tables)
	}
	if err := o.Shape.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	if f.duration < 0 || f.warmup < 0 || f.latencyOps < 0 || f.createOps < 0 || f.parallel < 1 || f.rounds < 1 || f.rounds > 1000 {
		return o, usagef("--duration, --warmup, --ops and --create-ops must not be negative, --setup-parallel ≥ 1, --rounds 1..1000")
	}
	o.Rounds = f.rounds
	if f.viewsPerLeaf < 0 || f.viewsPerLeaf > 10_000 {
		return o, usagef("--views-per-leaf %d: want 1..10000 (0 for the default)", f.viewsPerLeaf)
	}
	o.ViewsPerLeaf = f.viewsPerLeaf
	if f.createOps > 0 {
		o.CreateOps = f.createOps
	}
	if f.duration > 0 {
		o.Duration = f.duration
	}
	if f.warmup > 0 {
		o.Warmup = f.warmup
	}
	if f.latencyOps > 0 {
		o.LatencyOps = f.latencyOps
	}
	if f.serverWarm != "auto" {
		d, err := time.ParseDuration(f.serverWarm)
		if err != nil || d < 0 {
			return o, usagef("--server-warmup %q: want 'auto' or a duration like 30s", f.serverWarm)
		}
		o.ServerWarmup = d
	}
	o.Parallel = f.parallel
	if f.full {
		o.Full = true
		o.Threads = scenarios.DefaultThreads
	}
	if f.quick && strings.TrimSpace(f.scenario) != "" {
		// Scenarios picked by name run at every level the names pick
		// (`--quick --scenario load_table.throughput.t8`).
		o.Threads = scenarios.DefaultThreads
	}
	if f.threads != "" {
		o.Threads = nil
		for _, s := range strings.Split(f.threads, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > 4096 {
				return o, usagef("--threads %q: want positive integers up to 4096, comma-separated", f.threads)
			}
			o.Threads = append(o.Threads, n)
		}
	}
	sel, err := scenarios.ParseSelector(f.scenario, o.Threads)
	if err != nil {
		return o, usageError{err}
	}
	o.Select = sel
	if f.durability != "" {
		d, err := catalog.ParseDurability(f.durability)
		if err != nil {
			return o, usageError{err}
		}
		o.Durability = string(d)
	}
	if o.Delay, err = testDelay(); err != nil {
		return o, err
	}
	o.Namespace = f.namespace
	if f.namespaceSet && o.Namespace == "" {
		return o, usagef("--namespace '': want a namespace name (leave the flag out for katbench_<run id>)")
	}
	if o.Namespace == "" {
		o.Namespace = "katbench_" + run.ID
	}
	if err := catalog.ValidateIdentifier(table.Identifier{o.Namespace, "t"}); err != nil {
		return o, usagef("--namespace %q: %v", o.Namespace, err)
	}
	o.Extra = map[string]any{}
	if err := f.shard.apply(&o, f.namespace != ""); err != nil {
		return o, err
	}
	if err := f.rate.apply(&o); err != nil {
		return o, err
	}
	if err := f.mix.apply(&o, f.threads != "", f.scenario != ""); err != nil {
		return o, err
	}
	return o, nil
}

// targetSpec is one command-line target: a name and its positional args.
type targetSpec struct {
	name string
	args []string
}

// parseTarget reads `name` or `name=URL[@WAREHOUSE]`.
func parseTarget(s string) targetSpec {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return targetSpec{name: s}
	}
	if i := strings.LastIndex(val, "@"); i > 0 && !strings.Contains(val[i:], "/") {
		return targetSpec{name: name, args: []string{val[:i], val[i+1:]}}
	}
	return targetSpec{name: name, args: []string{val}}
}

// runBench is the body of `katbench run` and of every single-target command.
func runBench(cmd *cobra.Command, f *benchFlags, specs []targetSpec) (err error) {
	run := results.NewRun()
	run.Command = commandLine()
	f.namespaceSet = cmd.Flags().Changed("namespace")
	run.AllowErrors = f.allowErrs
	opts, err := f.options(run)
	if err != nil {
		return err
	}
	if err := f.snaps.apply(&opts, cmd.Flags().Changed); err != nil {
		return err
	}
	factories := make([]competitors.Factory, len(specs))
	for i, s := range specs {
		fac, err := competitors.Lookup(s.name)
		if err != nil {
			return usageError{err}
		}
		if err := fac.Check(s.args); err != nil {
			return usageError{err}
		}
		factories[i] = fac
	}
	if err := checkDisk(opts, f.dir, len(specs)); err != nil {
		return err
	}
	specs, factories = withFloors(specs, factories, opts)
	props, err := parseProps(f.props)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	format := resolveFormat(f.format, cmd.OutOrStdout())
	prog := newProgress(stderr, useBars(stderr, cmd.OutOrStdout(), format))
	opts.Log = prog
	opts.Progress = prog.update
	st, err := f.storage.resolve(cmd.Context(), prog)
	if err != nil {
		return err
	}

	dir, removeDir, err := workDir(f.dir)
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
		return removeTree(dir, prog.update)
	}
	defer func() {
		err = errors.Join(err, cleanDir())
		prog.Close()
	}()
	targets := make([]scenarios.Target, len(specs))
	seen := map[string]int{}
	for i, s := range specs {
		sub := s.name
		if seen[s.name]++; seen[s.name] > 1 {
			sub = fmt.Sprintf("%s-%d", s.name, seen[s.name])
		}
		cdir := filepath.Join(dir, sub)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", cdir, err)
		}
		targets[i] = scenarios.Target{Factory: factories[i], Config: competitors.Config{
			Args: s.args, Dir: cdir, Durability: opts.Durability, Props: props, Log: prog,
			Storage: st.forCompetitor(sub),
		}}
	}

	out, err := newOutput(format, f.history, cmd.OutOrStdout(), stderr)
	if err != nil {
		return err
	}
	out.label = f.label
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var lines results.Collector
	r := &scenarios.Runner{Run: run, Sink: results.Tee{out.Sink(), &lines}, Opts: opts}
	err = stopReason(ctx, r.Execute(ctx, targets))
	err = errors.Join(err, cleanDir())
	prog.Close() // the last bar is drawn before any table
	// A line with failed operations turns the run red (exit 1).
	return errors.Join(err, out.Close(), results.CheckErrors(lines.Snapshot()))
}

// competitorLong is the long help of `katbench NAME`: what it measures,
// its arguments, what it reads from the environment and which shared
// flags it leaves hidden because they do not apply.
func competitorLong(fac competitors.Factory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run the shared scenarios on %s", fac.Description)
	if fac.Peer != "" {
		fmt.Fprintf(&b, ", with %s beside it for comparison (--peer '' for none)", fac.Peer)
	}
	b.WriteString(", and print one JSON line per (target, scenario), or a table on a terminal.\n")
	if strings.Contains(fac.Usage, "WAREHOUSE") {
		b.WriteString("\nURL is the server's Iceberg REST base URL; WAREHOUSE is the warehouse the server knows " +
			"(Nessie: a warehouse of its config; Polaris: the catalog name), not --warehouse, which is the embedded catalog's storage.\n")
	}
	if fac.Env != "" {
		fmt.Fprintf(&b, "\nEnvironment: %s.\n", fac.Env)
	}
	if hidden := unusedFlags(fac); len(hidden) > 0 {
		fmt.Fprintf(&b, "\nNot shown, because they do not apply here: --%s.\n", strings.Join(hidden, ", --"))
	}
	return b.String()
}

// unusedFlags are the shared flags a competitor ignores: the embedded
// catalog's durability and storage for a remote server, client properties
// for an in-process catalog.
func unusedFlags(fac competitors.Factory) []string {
	var out []string
	if !fac.Durability {
		out = append(out, "durability")
	}
	if !fac.Storage {
		out = append(out, "warehouse", "transport", "s3-endpoint")
	}
	if !fac.Props {
		out = append(out, "prop")
	}
	return out
}

// hideUnused hides unusedFlags from c's help; they still parse, so old
// command lines keep working.
func hideUnused(c *cobra.Command, fac competitors.Factory) {
	for _, name := range unusedFlags(fac) {
		_ = c.Flags().MarkHidden(name) // registered above: never an error
	}
}

// errInterrupted ends a run stopped by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// stopReason says why a run stopped in words for its user: "interrupted"
// instead of the context's cancellation when a signal stopped it, and a
// closed stdout as such instead of a bare EPIPE.
func stopReason(ctx context.Context, err error) error {
	if errors.Is(err, syscall.EPIPE) {
		err = fmt.Errorf("stdout was closed (%w): the run stopped and removed what it had created", err)
	}
	if ctx.Err() == nil {
		return err
	}
	if err == nil || errors.Is(err, context.Canceled) {
		return errors.Join(withoutCanceled(err), errInterrupted)
	}
	return errors.Join(err, errInterrupted)
}

// withoutCanceled drops the parts of err that are (or wrap) the context's
// cancellation: after a signal they say no more than "interrupted". The
// other parts of a joined error are kept.
func withoutCanceled(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var keep []error
		for _, e := range j.Unwrap() {
			if e = withoutCanceled(e); e != nil {
				keep = append(keep, e)
			}
		}
		return errors.Join(keep...)
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// parseProps reads repeated k=v flags.
func parseProps(kvs []string) (map[string]string, error) {
	props := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--prop %q: want key=value", results.RedactProp(kv))
		}
		props[k] = v
	}
	return props, nil
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
		RunE: func(cmd *cobra.Command, args []string) error {
			specs := make([]targetSpec, len(args))
			for i, a := range args {
				specs[i] = parseTarget(a)
			}
			return runBench(cmd, &f, specs)
		},
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
			Long:    competitorLong(fac),
			Example: fac.Example,
			Args:    cobra.MaximumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				if !fac.Storage && cmd.Flags().Changed("warehouse") {
					return usagef("--warehouse is the embedded catalog's warehouse URI and does not apply to %s; "+
						"its server's warehouse is the argument after the URL: katbench %s", name, strings.TrimSpace(name+" "+fac.Usage))
				}
				specs := []targetSpec{{name: name, args: args}}
				if peer != "" && peer != name {
					specs = append(specs, targetSpec{name: peer})
				}
				return runBench(cmd, &ff, specs)
			},
		}
		ff.register(c)
		c.Flags().StringVar(&peer, "peer", fac.Peer, "competitor run beside this one for comparison ('' for none)")
		hideUnused(c, fac)
		rootCmd.AddCommand(c)
	}
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
}
