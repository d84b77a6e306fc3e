package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/scenarios/dataplane"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// dataFlags are the flags of `katbench data`.
type dataFlags struct {
	rows           string
	batchRows      int
	targetFileSize string
	rowGroupRows   string
	compression    string
	transports     string
	baseline       string
	rounds         int
	commitOps      int
	commitRows     int
	scanConc       int
	seed           uint64
	warehouse      string
	endpoint       string
	keep           bool
	raw            bool
	scenario       string
	cpuProfile     string
	rawIterations  int
	quick          bool
	dir            string
	namespace      string
	durability     string
	history        string
	label          string
	format         string
	props          []string
}

var dataOpts dataFlags

var dataCmd = &cobra.Command{
	Use:   "data [TARGET...]",
	Short: "Benchmark the data plane: Arrow → Parquet → S3 → Iceberg commit, and the scan back",
	Long: `data appends a deterministic synthetic events table (int64 ids, timestamps,
low- and high-cardinality strings, doubles, a nullable column) as Arrow record
batches to an Iceberg table of each TARGET (competitors as in 'katbench run';
default embedded), through iceberg-go: Parquet files PUT to the warehouse,
manifests, a catalog commit. It then scans the table back to Arrow and
compares a checksum of every column with what was written (a mismatch is a
failed operation and makes the command exit 1), and times small appends.

Scenarios, one JSON line per (target, transport):
  data.append.<rows>   one append of --rows rows per round; rows/s and Parquet
                       MiB/s in params, histogram = the commit phase
  data.scan            one full scan per round, checksum verified
  data.commit.latency  small appends (one small file each), end to end
  data.overwrite       whole-table overwrites, checksum verified (only when
                       named by --scenario)

Transports (--transports) are interleaved round by round. With no
--s3-endpoint (or KATBENCH_S3_ENDPOINT) the warehouse lives on an in-process
control S3 store, so the command needs no server; a file:// --warehouse
measures the local disk instead of S3.`,
	Example: `  katbench data --quick
  katbench data embedded rest --quick --format table
  eval "$(containers/versitygw_up.sh)"; katbench data embedded --s3-endpoint "$KATBENCH_S3_ENDPOINT" --warehouse s3://katbench/data`,
	RunE: func(cmd *cobra.Command, args []string) error { return runData(cmd, &dataOpts, args) },
}

func init() {
	f := &dataOpts
	fl := dataCmd.Flags()
	fl.StringVar(&f.rows, "rows", "", fmt.Sprintf("rows per append, e.g. 100k or 2M (default %s, %s with --quick)", dataplane.FormatRows(dataplane.DefaultRows), dataplane.FormatRows(dataplane.QuickRows)))
	fl.IntVar(&f.batchRows, "batch-rows", dataplane.DefaultBatchRows, "rows per Arrow record batch of the appended stream")
	fl.StringVar(&f.targetFileSize, "target-file-size", "", "write.target-file-size-bytes, e.g. 64MiB (default: iceberg-go's, 512MiB); also sets write.parquet.row-group-size-bytes to an eighth of it and runs the appends under a Go memory limit of twice it, at least 128MiB (not with GOMEMLIMIT set or on the in-process control store)")
	fl.StringVar(&f.rowGroupRows, "row-group-rows", "", "write.parquet.row-group-limit, e.g. 128k: the writer buffers one encoded row group per open file (default: iceberg-go's, 1048576)")
	fl.StringVar(&f.compression, "compression", "zstd", "Parquet codec: "+strings.Join(dataplane.Compressions, "|"))
	fl.StringVar(&f.transports, "transports", transportNames(), "S3 transports to compare, comma-separated, interleaved round by round")
	fl.StringVar(&f.baseline, "baseline", string(transport.Baseline()), "transport the table's ratios are taken over (their denominator)")
	fl.IntVar(&f.rounds, "rounds", dataplane.DefaultRounds, "interleaved rounds; each appends --rows and scans once per transport")
	fl.IntVar(&f.commitOps, "commit-ops", 0, fmt.Sprintf("small appends per transport in data.commit.latency (default %d, %d with --quick)", dataplane.DefaultCommitOps, dataplane.QuickCommitOps))
	fl.IntVar(&f.commitRows, "commit-rows", dataplane.DefaultCommitRows, "rows per small append")
	fl.IntVar(&f.scanConc, "scan-concurrency", 0, "iceberg-go scan concurrency (default GOMAXPROCS)")
	fl.Uint64Var(&f.seed, "seed", dataplane.DefaultSeed, "seed of the events generator")
	fl.StringVar(&f.warehouse, "warehouse", "", "warehouse root: s3://bucket/prefix (default s3://katbench/data) or file:///path; each run writes under <root>/<run id>/")
	fl.StringVar(&f.endpoint, "s3-endpoint", os.Getenv(s3.EnvEndpoint), "S3 endpoint http(s)://host:port of an s3:// warehouse; env "+s3.EnvEndpoint+"; keys from "+s3.EnvAccessKey+", "+s3.EnvSecretKey+", region from "+s3.EnvRegion+" (default: the in-process control store)")
	fl.BoolVar(&f.keep, "keep", false, "keep the run's tables and their objects (default: tables dropped, objects removed); with --dir, each lane's embedded catalog stays in DIR/<i>-<target>-<transport>")
	fl.BoolVar(&f.raw, "raw", true, "on an S3 warehouse, also measure raw S3 PUT and GET (katbench transport's s3.put/s3.get) at the mean Parquet file size, for the IO-efficiency ratios")
	fl.IntVar(&f.rawIterations, "raw-iterations", 0, "raw PUTs and GETs per transport (default 20, 8 with --quick)")
	fl.StringVar(&f.scenario, "scenario", "", "run only scenarios matching these globs, comma-separated (data.append.*, data.scan, data.commit.latency, and data.overwrite, which runs only when named; the scan needs the append)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured run (go tool pprof) to this file")
	fl.BoolVar(&f.quick, "quick", os.Getenv("BENCH_QUICK") == "1", "small run: 100k rows per append, 20 small appends; env BENCH_QUICK=1")
	fl.StringVar(&f.dir, "dir", "", "keep catalogs under this directory (default: a temp dir removed after the run)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace of the run's tables (default katbench_data_<run id>)")
	fl.StringVar(&f.durability, "durability", os.Getenv("BENCH_DURABILITY"), "embedded catalog durability: immediate|eventual|none; env BENCH_DURABILITY")
	registerLabel(fl, &f.label)
	fl.StringVar(&f.history, "history", "", "also append result lines to this file (none by default, as for run; the README's runs are recorded with --history bench_history.jsonl)")
	fl.StringVar(&f.format, "format", "auto", formatHelp)
	fl.StringArrayVar(&f.props, "prop", nil, "client property k=v for REST competitors (repeatable)")
	rootCmd.AddCommand(dataCmd)
}

// parseStore validates the warehouse flags without any I/O: bad values are
// usage errors. Keys come from the environment, as for every command with
// an s3:// warehouse.
func (f *dataFlags) parseStore(run *results.Run) (*workspace.Store, error) {
	raw := f.warehouse
	if strings.TrimSpace(raw) == "" {
		raw = "s3://katbench/data"
	}
	w, err := workspace.Parse(raw)
	if err != nil {
		return nil, usagef("--warehouse: %v", err)
	}
	env := s3.FromEnv(os.Getenv)
	env.Endpoint, env.TransportSettings = f.endpoint, transportSettings
	if w.S3 && f.endpoint != "" {
		if _, err := s3.ParseEndpoint(f.endpoint); err != nil {
			return nil, usagef("--s3-endpoint: %v", err)
		}
		if env.AccessKey == "" || env.SecretKey == "" {
			return nil, usagef("--s3-endpoint %s needs S3 keys: set %s and %s", f.endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
		}
	}
	return workspace.NewStore(w, run.ID, env), nil
}

// appendMemoryLimit is the Go memory limit of the appends: none when
// GOMEMLIMIT is set (the user's limit wins) or when the warehouse is on the
// in-process control store, whose objects are on this process's heap: the
// live heap would outgrow a limit sized for the append and the collector
// would run nearly continuously.
func appendMemoryLimit(cfg dataplane.Config, store *workspace.Store) int64 {
	if os.Getenv("GOMEMLIMIT") != "" || store.InProcess() {
		return 0
	}
	return dataplane.AppendMemoryLimit(cfg.TargetFileSize)
}

// dataConfig turns flags into the benchmark config, rejecting bad values
// before anything starts.
func (f *dataFlags) config(run *results.Run) (dataplane.Config, []transport.Kind, error) {
	cfg := dataplane.Config{
		BatchRows: f.batchRows, Compression: f.compression, Rounds: f.rounds,
		CommitOps: f.commitOps, CommitRows: f.commitRows, ScanConcurrency: f.scanConc,
		Seed: f.seed, Namespace: f.namespace, Quick: f.quick, Run: run, KeepTables: f.keep,
	}
	if err := checkFormat(f.format); err != nil {
		return cfg, nil, err
	}
	if f.rows != "" {
		n, err := dataplane.ParseRows(f.rows)
		if err != nil {
			return cfg, nil, usagef("--rows: %v", err)
		}
		cfg.Rows = n
	}
	if f.targetFileSize != "" {
		n, err := s3bench.ParseSize(f.targetFileSize)
		if err != nil || n < 1 {
			return cfg, nil, usagef("--target-file-size %q: want a positive size such as 64MiB", f.targetFileSize)
		}
		cfg.TargetFileSize = n
	}
	if f.rowGroupRows != "" {
		n, err := dataplane.ParseRows(f.rowGroupRows)
		if err != nil {
			return cfg, nil, usagef("--row-group-rows: %v", err)
		}
		cfg.RowGroupRows = n
	}
	if f.batchRows < 1 || f.rounds < 1 || f.commitOps < 0 || f.commitRows < 1 || f.scanConc < 0 {
		return cfg, nil, usagef("--batch-rows, --rounds and --commit-rows must be ≥ 1, --commit-ops and --scan-concurrency ≥ 0")
	}
	if f.durability != "" {
		if _, err := catalog.ParseDurability(f.durability); err != nil {
			return cfg, nil, usageError{err}
		}
	}
	if f.rawIterations < 0 {
		return cfg, nil, usagef("--raw-iterations must not be negative")
	}
	if f.seed == 0 {
		return cfg, nil, usagef("--seed must not be 0")
	}
	if _, err := dataplane.TableProps(f.compression, cfg.TargetFileSize); err != nil {
		return cfg, nil, usagef("--compression %q: want %s", f.compression, strings.Join(dataplane.Compressions, ", "))
	}
	sel, err := scenarios.ParseSelectorOf(f.scenario, dataplane.SelectNames(rowsOrDefault(cfg)))
	if err != nil {
		return cfg, nil, usagef("--scenario: %v", err)
	}
	if sel != nil {
		cfg.Select = sel.Selects
	}
	kinds, err := s3bench.ParseTransports(f.transports)
	if err != nil {
		return cfg, nil, usagef("--transports: %v", err)
	}
	if _, err := transport.ParseKind(f.baseline); err != nil {
		return cfg, nil, usagef("--baseline: %v", err)
	}
	return cfg, kinds, nil
}

func runData(cmd *cobra.Command, f *dataFlags, args []string) (err error) {
	run := results.NewRun()
	run.Command = commandLine()
	cfg, kinds, err := f.config(run)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		args = []string{"embedded"}
	}
	props, err := parseProps(f.props)
	if err != nil {
		return err
	}
	targets := make([]dataplane.Target, len(args))
	for i, a := range args {
		spec := parseTarget(a)
		fac, err := competitors.Lookup(spec.name)
		if err != nil {
			return usageError{err}
		}
		targets[i] = dataplane.Target{Factory: fac, Name: spec.name, Args: spec.args, Index: i, Props: props, Durability: f.durability,
			Env: competitors.ReadEnv(spec.name, os.Getenv)}
	}
	store, err := f.parseStore(run)
	if err != nil {
		return err
	}
	stderr, stdout := cmd.ErrOrStderr(), cmd.OutOrStdout()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The store is checked before --dir is created: an unreachable
	// endpoint or refused keys leave nothing behind.
	fmt.Fprintf(stderr, "katbench data: warehouse %s on %s\n", store.Root.URI, store.Describe(cmd.Flags().Changed("s3-endpoint")))
	if err := store.Open(ctx, stderr); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	cfg.MemoryLimit = appendMemoryLimit(cfg, store)
	dir, removeDir, err := workDir(f.dir)
	if err != nil {
		return err
	}
	defer func() {
		if removeDir {
			err = errors.Join(err, os.RemoveAll(dir))
		}
	}()
	if !f.keep {
		defer func() { err = errors.Join(err, store.RemoveRun(ctx)) }()
	}

	format := resolveFormat(f.format, stdout)
	prog := newProgress(stderr, useBars(stderr, stdout, format))
	defer prog.Close()
	jsonOut, tables := stdout, stderr
	if format == "table" {
		jsonOut, tables = io.Discard, stdout
	}
	out, err := newOutput("jsonl", f.history, jsonOut, plainWriter{stderr})
	if err != nil {
		return err
	}
	out.label = f.label
	var coll results.Collector
	defer func() {
		prog.Close()
		err = errors.Join(err, out.Close(), dataplane.WriteTable(tables, coll.Snapshot(), f.baseline))
	}()
	if f.cpuProfile != "" {
		stopProfile, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stopProfile()) }()
	}
	cfg.Warehouse = store.Root.Shown()
	cfg.Log = &firstWrite{w: prog}
	cfg.Progress = prog.update
	if store.Root.S3 && f.raw {
		cfg.Baseline = &dataplane.Baseline{Bench: s3bench.Config{
			S3: store.S3, EndpointName: store.Name(), StoreInProcess: store.InProcess(), Transports: kinds,
			Iterations: f.rawIters(), Rounds: min(f.rounds*2, f.rawIters()), Quick: f.quick, Run: run, Log: cfg.Log,
		}}
		cfg.Baseline.Bench.S3.MaxRetries = 1
	}
	return dataplane.RunAll(ctx, cfg, targets, kinds, store, dir, results.Tee{out.Sink(), &coll})
}

// rawIters is the raw baseline's PUTs and GETs per transport.
func (f *dataFlags) rawIters() int {
	switch {
	case f.rawIterations > 0:
		return f.rawIterations
	case f.quick:
		return 8
	}
	return 20
}

func rowsOrDefault(cfg dataplane.Config) int64 {
	switch {
	case cfg.Rows > 0:
		return cfg.Rows
	case cfg.Quick:
		return dataplane.QuickRows
	default:
		return dataplane.DefaultRows
	}
}

// startCPUProfile writes a CPU profile to path until the returned stop.
func startCPUProfile(path string) (stop func() error, err error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		return nil, errors.Join(fmt.Errorf("--cpuprofile: %w", err), pf.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return pf.Close()
	}, nil
}
