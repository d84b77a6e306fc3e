package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	icebergio "github.com/apache/iceberg-go/io"
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
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
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

// dataStore is where a data run's warehouse lives: an S3 store (the
// in-process control by default) or a local directory. Not safe for
// concurrent use.
type dataStore struct {
	s3       bool
	root     string              // this run's warehouse root: <--warehouse>/<run id>
	wh       workspace.Warehouse // the same, parsed
	bucket   string              // s3 only
	endpoint string              // s3 only
	env      s3.Config
	name     string // "control", the endpoint, or "file"
	ctl      *s3.Control
}

// parseStore validates the warehouse flags without any I/O: bad values are
// usage errors. Keys come from the environment, as for every command with
// an s3:// warehouse.
func (f *dataFlags) parseStore(run *results.Run) (*dataStore, error) {
	raw := f.warehouse
	if strings.TrimSpace(raw) == "" {
		raw = "s3://katbench/data"
	}
	w, err := workspace.Parse(raw)
	if err != nil {
		return nil, usagef("--warehouse: %v", err)
	}
	if !w.S3 {
		return &dataStore{name: "file", root: w.Run(run.ID).URI, wh: w.Run(run.ID)}, nil
	}
	bucket := w.Bucket
	st := &dataStore{s3: true, bucket: bucket, root: w.Run(run.ID).URI, wh: w.Run(run.ID), env: s3.FromEnv(os.Getenv)}
	if f.endpoint != "" {
		if _, err := s3.ParseEndpoint(f.endpoint); err != nil {
			return nil, usagef("--s3-endpoint: %v", err)
		}
		if st.env.AccessKey == "" || st.env.SecretKey == "" {
			return nil, usagef("--s3-endpoint %s needs S3 keys: set %s and %s", f.endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
		}
		st.endpoint, st.name = f.endpoint, results.RedactText(f.endpoint) // name is a label: stderr and params
	}
	return st, nil
}

// start starts the control store when no endpoint was given and checks the
// store up front (reachable, keys accepted, bucket present). A missing
// bucket is created and said so: the run writes only under its own prefix
// and removes it afterwards (unless --keep).
func (st *dataStore) start(ctx context.Context, stderr io.Writer) error {
	if !st.s3 {
		return nil
	}
	if st.endpoint == "" {
		ctl, err := s3.StartControl()
		if err != nil {
			return err
		}
		st.ctl, st.name, st.endpoint = ctl, "control", ctl.URL()
		if st.env.AccessKey == "" || st.env.SecretKey == "" {
			st.env.AccessKey, st.env.SecretKey = "control", "control" // it accepts any signature
		}
	}
	fsys, err := s3io.New(st.ioProps(transport.Baseline()))
	if err != nil {
		return errors.Join(err, st.close())
	}
	cctx, cancel := context.WithTimeout(ctx, storageCheckTimeout)
	defer cancel()
	created, err := fsys.EnsureBucket(cctx, st.bucket)
	if err != nil {
		return errors.Join(fmt.Errorf("--warehouse %s: %w", st.root, err), st.close())
	}
	if created && st.ctl == nil {
		fmt.Fprintf(stderr, "katbench: created bucket %q at %s for the data warehouse (it did not exist)\n", st.bucket, st.name)
	}
	return nil
}

// storeKind is the line's params.store: "in-process control" (the
// control S3 store inside this process), "s3" (an S3 endpoint) or
// "file" (a local directory).
func (st *dataStore) storeKind() string {
	switch {
	case !st.s3:
		return "file"
	case st.ctl != nil:
		return "in-process control"
	}
	return "s3"
}

// endpointShown is the line's params.endpoint: the S3 endpoint as
// scheme://host:port, without user info, path or query; "" when the store
// is in-process or a directory (its port means nothing after the run).
func (st *dataStore) endpointShown() string {
	if !st.s3 || st.ctl != nil {
		return ""
	}
	u, err := url.Parse(st.endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// describe says on stderr which store the run uses and why: the
// in-process store, or an endpoint from --s3-endpoint or the environment.
// It may be called before start.
func (st *dataStore) describe(fromFlag bool) string {
	switch {
	case !st.s3:
		return "the local disk (a file:// warehouse)"
	case st.ctl != nil || st.endpoint == "":
		return "the in-process control S3 store (no --s3-endpoint, no " + s3.EnvEndpoint + ")"
	}
	from := s3.EnvEndpoint + " from the environment"
	if fromFlag {
		from = "--s3-endpoint"
	}
	return "the S3 store at " + st.endpointShown() + " (" + from + ")"
}

// ioProps are the iceberg-go IO properties of a lane on transport k.
func (st *dataStore) ioProps(k transport.Kind) map[string]string {
	if !st.s3 {
		return nil
	}
	p := map[string]string{
		icebergio.S3EndpointURL:     st.endpoint,
		icebergio.S3AccessKeyID:     st.env.AccessKey,
		icebergio.S3SecretAccessKey: st.env.SecretKey,
		icebergio.S3Region:          st.env.Region,
		s3io.PropTransport:          string(k),
		s3io.PropScope:              st.root, // this run's clients, released at its end
	}
	for name, v := range transportSettings {
		p[s3io.PropSettingPrefix+name] = v
	}
	return p
}

// shown is the warehouse as result lines may show it: scheme and bucket.
func (st *dataStore) shown() string {
	if !st.s3 {
		return "file"
	}
	return "s3://" + st.bucket
}

// s3Config is the store for katbench transport's bench and for cleanup.
func (st *dataStore) s3Config() s3.Config {
	return s3.Config{
		Endpoint: st.endpoint, Bucket: st.bucket, AccessKey: st.env.AccessKey,
		SecretKey: st.env.SecretKey, Region: st.env.Region, MaxRetries: 1,
		TransportSettings: transportSettings,
	}
}

func (st *dataStore) close() error {
	s3io.Release(st.root)
	if st.ctl != nil {
		return st.ctl.Close()
	}
	return nil
}

// removeRun deletes everything under the run's root (objects on S3, the
// directory of a file:// warehouse), on a context that survives the run's
// cancellation. The control store needs none: it vanishes with the process.
func (st *dataStore) removeRun(ctx context.Context) error {
	if !st.s3 {
		if err := os.RemoveAll(st.wh.Dir); err != nil {
			return fmt.Errorf("remove the run's warehouse %s: %w", st.root, err)
		}
		return nil
	}
	if st.ctl != nil {
		return nil
	}
	cfg := st.s3Config()
	cfg.Transport = transport.Baseline()
	c, info, err := s3.NewClient(cfg)
	if err != nil {
		return err
	}
	defer info.CloseIdle()
	if err := workspace.RemovePrefix(ctx, c, st.bucket, st.wh.Prefix+"/"); err != nil {
		return fmt.Errorf("remove the run's objects under %s: %w", st.root, err)
	}
	return nil
}

// appendMemoryLimit is the Go memory limit of the appends: none when
// GOMEMLIMIT is set (the user's limit wins) or when the warehouse is on the
// in-process control store, whose objects are on this process's heap: the
// live heap would outgrow a limit sized for the append and the collector
// would run nearly continuously.
func appendMemoryLimit(cfg dataplane.Config, store *dataStore) int64 {
	if os.Getenv("GOMEMLIMIT") != "" || store.ctl != nil {
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
	if !validFormatName(f.format) {
		return cfg, nil, usagef("--format %q: want auto, jsonl or table", f.format)
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
	sel, err := scenarios.ParseSelectorOf(f.scenario, dataplane.Names(rowsOrDefault(cfg)))
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
	specs := make([]targetSpec, len(args))
	facs := make([]competitors.Factory, len(args))
	for i, a := range args {
		specs[i] = parseTarget(a)
		if facs[i], err = competitors.Lookup(specs[i].name); err != nil {
			return usageError{err}
		}
	}
	props, err := parseProps(f.props)
	if err != nil {
		return err
	}
	store, err := f.parseStore(run)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	stdout := cmd.OutOrStdout()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The store is checked before --dir is created: an unreachable
	// endpoint or refused keys leave nothing behind.
	fmt.Fprintf(stderr, "katbench data: warehouse %s on %s\n", store.root, store.describe(cmd.Flags().Changed("s3-endpoint")))
	if err := store.start(ctx, stderr); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.close()) }()
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
		defer func() { err = errors.Join(err, store.removeRun(ctx)) }()
	}

	format := resolveFormat(f.format, stdout)
	prog := newProgress(stderr, useBars(stderr, stdout, format))
	defer prog.Close()
	jsonOut := stdout
	if format == "table" {
		jsonOut = io.Discard
	}
	out, err := newOutput("jsonl", f.history, jsonOut, plainWriter{stderr})
	if err != nil {
		return err
	}
	out.label = f.label
	var coll results.Collector
	sink := results.Tee{out.Sink(), &coll}
	defer func() {
		prog.Close()
		err = errors.Join(err, out.Close())
		tables := stderr
		if format == "table" {
			tables = stdout
		}
		err = errors.Join(err, dataplane.WriteTable(tables, coll.Snapshot(), f.baseline))
	}()

	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return errors.Join(fmt.Errorf("--cpuprofile: %w", err), pf.Close())
		}
		defer func() {
			pprof.StopCPUProfile()
			err = errors.Join(err, pf.Close())
		}()
	}
	cfg.Warehouse = store.shown()
	cfg.Log = &firstWrite{w: prog}
	cfg.Progress = prog.update
	if store.s3 && f.raw {
		cfg.Baseline = &dataplane.Baseline{Bench: f.rawBench(run, store, kinds, cfg.Log)}
	}
	var errs []error
	for i, spec := range specs {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		lanes, closeLanes, err := openDataLanes(ctx, facs[i], spec, i, kinds, store, dir, props, f.durability, cfg.Log)
		if err != nil {
			// The target could not start: its lines say why; the others run.
			for _, name := range dataplane.Recorded(cfg) {
				p := map[string]any{"warehouse": store.shown(), "quick": f.quick, "store": store.storeKind()}
				if ep := store.endpointShown(); ep != "" {
					p["endpoint"] = ep
				}
				if werr := sink.Write(run.Skipped(spec.name, name, err.Error(), p)); werr != nil {
					return werr
				}
			}
			errs = append(errs, err)
			continue
		}
		rerr := dataplane.Run(ctx, cfg, lanes, sink)
		errs = append(errs, rerr, closeLanes())
	}
	if cfg.Baseline != nil && ctx.Err() == nil {
		errs = append(errs, cfg.Baseline.Measure(ctx, sink))
	}
	return errors.Join(errs...)
}

// rawBench is the transport bench of the raw-S3 baseline: PUT and GET at
// the mean Parquet file size (set by the baseline), on every transport.
func (f *dataFlags) rawBench(run *results.Run, store *dataStore, kinds []transport.Kind, log io.Writer) s3bench.Config {
	iters := f.rawIterations
	if iters == 0 {
		iters = 20
		if f.quick {
			iters = 8
		}
	}
	return s3bench.Config{
		S3: store.s3Config(), EndpointName: store.name, StoreInProcess: store.ctl != nil, Transports: kinds,
		Iterations: iters, Rounds: min(f.rounds*2, iters), Quick: f.quick, Run: run, Log: log,
	}
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

// openDataLanes starts one competitor per transport for a target, each on
// its own warehouse under the run's root (<root>/<i>-<target>-<transport>)
// with IO properties that pick the transport: the in-process catalogs get
// them as their storage, REST clients as client properties. A transport
// that falls back to one already open is measured once (as `katbench
// transport` does).
func openDataLanes(ctx context.Context, fac competitors.Factory, spec targetSpec, idx int, kinds []transport.Kind,
	store *dataStore, dir string, props map[string]string, durability string, log io.Writer,
) (lanes []dataplane.Lane, closeAll func() error, err error) {
	var opened []competitors.Competitor
	closeAll = func() error {
		var errs []error
		for _, c := range opened {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, closeAll())
		}
	}()
	if !store.s3 {
		kinds = kinds[:1] // a file:// warehouse has no S3 transport to compare
	}
	used := map[transport.Kind]bool{}
	for _, k := range kinds {
		lane := dataplane.Lane{Target: spec.name}
		sub := fmt.Sprintf("%d-%s", idx, spec.name)
		storage := competitors.Storage{Params: map[string]any{"warehouse": store.shown(), "store": store.storeKind()}}
		if ep := store.endpointShown(); ep != "" {
			storage.Params["endpoint"] = ep
		}
		if store.s3 {
			fsys, err := s3io.New(store.ioProps(k))
			if err != nil {
				return nil, nil, err
			}
			u, fallback := fsys.Transport()
			if fallback != "" {
				fmt.Fprintf(log, "katbench: warning: transport %s unavailable for %s, using %s: %s\n", k, store.name, u, fallback)
			}
			if used[u] {
				continue
			}
			used[u] = true
			lane.Transport, lane.Requested, lane.Fallback = string(u), string(k), fallback
			lane.Facts = fsys.Facts
			sub += "-" + lane.Transport
			storage.IOProps = store.ioProps(k)
			storage.Params["transport"] = string(u)
			if fallback != "" {
				storage.Params["transport_fallback"] = fallback
			}
			if store.ctl != nil {
				// Its objects are in this process's memory, and so in peak_rss_mib.
				storage.Params["s3_store"] = "in-process control"
			}
			// Every table of the lane lives under the run's root, whatever
			// catalog holds it, so removing the root removes the run.
			lane.Location = store.root + "/" + sub
		}
		storage.Warehouse = store.root + "/" + sub
		cdir := filepath.Join(dir, sub)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create %s: %w", cdir, err)
		}
		p := maps.Clone(props)
		maps.Copy(p, store.ioProps(k))
		c, err := fac.New(ctx, competitors.Config{
			Args: spec.args, Dir: cdir, Durability: durability, Props: p, Log: log, Storage: storage,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", spec.name, err)
		}
		opened = append(opened, c)
		lane.Catalog = c.Catalog()
		lane.Params = results.RedactParams(c.Params())
		lanes = append(lanes, lane)
	}
	return lanes, closeAll, nil
}
