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
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
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
	compression    string
	transports     string
	rounds         int
	commitOps      int
	commitRows     int
	scanConc       int
	seed           uint64
	warehouse      string
	endpoint       string
	accessKey      string
	secretKey      string
	region         string
	keep           bool
	raw            bool
	rawIterations  int
	quick          bool
	dir            string
	namespace      string
	durability     string
	history        string
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
	env := s3.FromEnv()
	f := &dataOpts
	fl := dataCmd.Flags()
	fl.StringVar(&f.rows, "rows", "", fmt.Sprintf("rows per append, e.g. 100k or 2M (default %s, %s with --quick)", dataplane.FormatRows(dataplane.DefaultRows), dataplane.FormatRows(dataplane.QuickRows)))
	fl.IntVar(&f.batchRows, "batch-rows", dataplane.DefaultBatchRows, "rows per Arrow record batch of the appended stream")
	fl.StringVar(&f.targetFileSize, "target-file-size", "", "write.target-file-size-bytes, e.g. 64MiB (default: iceberg-go's, 512MiB)")
	fl.StringVar(&f.compression, "compression", "zstd", "Parquet codec: "+strings.Join(dataplane.Compressions, "|"))
	fl.StringVar(&f.transports, "transports", "http,uring", "S3 transports to compare, comma-separated, interleaved round by round")
	fl.IntVar(&f.rounds, "rounds", dataplane.DefaultRounds, "interleaved rounds; each appends --rows and scans once per transport")
	fl.IntVar(&f.commitOps, "commit-ops", 0, fmt.Sprintf("small appends per transport in data.commit.latency (default %d, %d with --quick)", dataplane.DefaultCommitOps, dataplane.QuickCommitOps))
	fl.IntVar(&f.commitRows, "commit-rows", dataplane.DefaultCommitRows, "rows per small append")
	fl.IntVar(&f.scanConc, "scan-concurrency", 0, "iceberg-go scan concurrency (default GOMAXPROCS)")
	fl.Uint64Var(&f.seed, "seed", dataplane.DefaultSeed, "seed of the events generator")
	fl.StringVar(&f.warehouse, "warehouse", "", "warehouse root: s3://bucket/prefix (default s3://katbench/data) or file:///path; each run writes under <root>/<run id>/")
	fl.StringVar(&f.endpoint, "s3-endpoint", env.Endpoint, "S3 endpoint http(s)://host:port; env "+s3.EnvEndpoint+" (default: the in-process control store)")
	fl.StringVar(&f.accessKey, "access-key", env.AccessKey, "access key; env "+s3.EnvAccessKey)
	fl.StringVar(&f.secretKey, "secret-key", "", "secret key (default: env "+s3.EnvSecretKey+")")
	fl.StringVar(&f.region, "region", env.Region, "signing region; env "+s3.EnvRegion)
	fl.BoolVar(&f.keep, "keep", false, "keep the run's tables and their objects (default: tables dropped, objects removed); with --dir, each lane's embedded catalog stays in DIR/<i>-<target>-<transport>")
	fl.BoolVar(&f.raw, "raw", true, "on an S3 warehouse, also measure raw S3 PUT and GET (katbench transport's s3.put/s3.get) at the mean Parquet file size, for the IO-efficiency ratios")
	fl.IntVar(&f.rawIterations, "raw-iterations", 0, "raw PUTs and GETs per transport (default 20, 8 with --quick)")
	fl.BoolVar(&f.quick, "quick", os.Getenv("BENCH_QUICK") == "1", "small run: 100k rows per append, 20 small appends; env BENCH_QUICK=1")
	fl.StringVar(&f.dir, "dir", "", "keep catalogs under this directory (default: a temp dir removed after the run)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace of the run's tables (default katbench_data_<run id>)")
	fl.StringVar(&f.durability, "durability", os.Getenv("BENCH_DURABILITY"), "embedded catalog durability: immediate|eventual|none; env BENCH_DURABILITY")
	fl.StringVar(&f.history, "history", "bench_history.jsonl", "append result lines to this file ('' for none)")
	fl.StringVar(&f.format, "format", "jsonl", "stdout format: jsonl or table")
	fl.StringArrayVar(&f.props, "prop", nil, "client property k=v for REST competitors (repeatable)")
	rootCmd.AddCommand(dataCmd)
}

// dataStore is where a data run's warehouse lives.
type dataStore struct {
	s3     bool      // s3:// warehouse; else file://
	cfg    s3.Config // endpoint, keys, region, bucket (s3 only)
	name   string    // "control", the endpoint, or "file"
	prefix string    // key prefix (s3) or directory (file) of this run
	ctl    *s3.Control
}

// warehouse is the lane warehouse for a (target, transport).
func (st *dataStore) warehouse(sub string) string {
	if !st.s3 {
		return "file://" + filepath.Join(st.prefix, sub)
	}
	return "s3://" + st.cfg.Bucket + "/" + st.prefix + sub
}

// shown is the warehouse as result lines may show it: scheme and bucket.
func (st *dataStore) shown() string {
	if !st.s3 {
		return "file"
	}
	return "s3://" + st.cfg.Bucket
}

// ioProps are the iceberg-go IO properties of a lane on transport k.
func (st *dataStore) ioProps(k transport.Kind) map[string]string {
	if !st.s3 {
		return nil
	}
	return map[string]string{
		"s3.endpoint":          st.cfg.Endpoint,
		"s3.access-key-id":     st.cfg.AccessKey,
		"s3.secret-access-key": st.cfg.SecretKey,
		"s3.region":            st.cfg.Region,
		"katbench.transport":   string(k),
	}
}

// exportEnv points this process's S3 environment at the store, so the
// catalogs katbench starts in-process (embedded, and the one behind the
// REST and gRPC fronts) read and write the lane's table metadata there:
// their IO falls back to these variables. The transport comes from each
// table's katbench.transport property.
func (st *dataStore) exportEnv() error {
	if !st.s3 {
		return nil
	}
	for k, v := range map[string]string{
		s3.EnvEndpoint: st.cfg.Endpoint, s3.EnvAccessKey: st.cfg.AccessKey,
		s3.EnvSecretKey: st.cfg.SecretKey, s3.EnvRegion: st.cfg.Region,
	} {
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("set %s: %w", k, err)
		}
	}
	return nil
}

func (st *dataStore) close() error {
	if st.ctl != nil {
		return st.ctl.Close()
	}
	return nil
}

// dataConfig turns flags into the benchmark config, rejecting bad values
// before anything starts.
func (f *dataFlags) config(run *results.Run) (dataplane.Config, []transport.Kind, error) {
	cfg := dataplane.Config{
		BatchRows: f.batchRows, Compression: f.compression, Rounds: f.rounds,
		CommitOps: f.commitOps, CommitRows: f.commitRows, ScanConcurrency: f.scanConc,
		Seed: f.seed, Namespace: f.namespace, Quick: f.quick, Run: run, KeepTables: f.keep,
	}
	if f.format != "jsonl" && f.format != "table" {
		return cfg, nil, usagef("--format %q: want jsonl or table", f.format)
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
	kinds, err := s3bench.ParseTransports(f.transports)
	if err != nil {
		return cfg, nil, usagef("--transports: %v", err)
	}
	return cfg, kinds, nil
}

// parseStore validates the warehouse flags without any I/O.
func (f *dataFlags) parseStore(run *results.Run) (*dataStore, error) {
	wh := f.warehouse
	if wh == "" {
		wh = "s3://katbench/data"
	}
	u, err := url.Parse(wh)
	if err != nil {
		return nil, usagef("--warehouse %q: %v", wh, err)
	}
	switch u.Scheme {
	case "file":
		if u.Path == "" || u.Host != "" {
			return nil, usagef("--warehouse %q: want file:///absolute/path", wh)
		}
		return &dataStore{name: "file", prefix: filepath.Join(u.Path, run.ID)}, nil
	case "s3", "s3a":
	default:
		return nil, usagef("--warehouse %q: want s3://bucket/prefix or file:///path", wh)
	}
	if u.Host == "" {
		return nil, usagef("--warehouse %q: no bucket", wh)
	}
	st := &dataStore{s3: true}
	st.cfg = s3.Config{Bucket: u.Host, AccessKey: f.accessKey, SecretKey: f.secretKey, Region: f.region, MaxRetries: 1}
	if st.cfg.SecretKey == "" {
		st.cfg.SecretKey = os.Getenv(s3.EnvSecretKey)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix += "/"
	}
	st.prefix = prefix + run.ID + "/"
	if f.endpoint != "" {
		if _, err := s3.ParseEndpoint(f.endpoint); err != nil {
			return nil, usageError{err}
		}
		if st.cfg.AccessKey == "" || st.cfg.SecretKey == "" {
			return nil, usagef("--s3-endpoint %s needs keys: --access-key/--secret-key or %s/%s", f.endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
		}
		st.cfg.Endpoint, st.name = f.endpoint, f.endpoint
	}
	return st, nil
}

// start starts the control store when no endpoint was given and makes sure
// the bucket exists. A missing bucket is created: the run writes only under
// its own prefix and removes it afterwards (unless --keep).
func (st *dataStore) start(ctx context.Context, stderr io.Writer) error {
	if !st.s3 {
		return nil
	}
	if st.cfg.Endpoint == "" {
		ctl, err := s3.StartControl()
		if err != nil {
			return err
		}
		st.ctl, st.name = ctl, "control"
		st.cfg.Endpoint = ctl.URL()
		if st.cfg.AccessKey == "" || st.cfg.SecretKey == "" {
			st.cfg.AccessKey, st.cfg.SecretKey = "control", "control" // it accepts any signature
		}
	}
	if err := st.ensureBucket(ctx, stderr); err != nil {
		return errors.Join(err, st.close())
	}
	return nil
}

// client is a minio-go client on net/http for setup and cleanup.
func (st *dataStore) client() (*minio.Client, s3.Info, error) {
	c := st.cfg
	c.Transport = transport.HTTP
	return s3.NewClient(c)
}

func (st *dataStore) ensureBucket(ctx context.Context, stderr io.Writer) error {
	c, info, err := st.client()
	if err != nil {
		return err
	}
	defer info.CloseIdle()
	ok, err := c.BucketExists(ctx, st.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("warehouse bucket %s on %s: %w", st.cfg.Bucket, st.name, err)
	}
	if ok {
		return nil
	}
	if err := c.MakeBucket(ctx, st.cfg.Bucket, minio.MakeBucketOptions{Region: st.cfg.Region}); err != nil {
		return fmt.Errorf("create warehouse bucket %s on %s: %w", st.cfg.Bucket, st.name, err)
	}
	if st.ctl == nil {
		fmt.Fprintf(stderr, "katbench: created bucket %s on %s (the warehouse's bucket did not exist)\n", st.cfg.Bucket, st.name)
	}
	return nil
}

// removeRun deletes every object under the run's prefix, on a context that
// survives the run's cancellation.
func (st *dataStore) removeRun(ctx context.Context) error {
	if !st.s3 || st.ctl != nil { // the control store vanishes with the process
		return nil
	}
	c, info, err := st.client()
	if err != nil {
		return err
	}
	defer info.CloseIdle()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	var errs []error
	for obj := range c.ListObjects(ctx, st.cfg.Bucket, minio.ListObjectsOptions{Prefix: st.prefix, Recursive: true}) {
		if obj.Err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", st.prefix, obj.Err))
			break
		}
		if err := c.RemoveObject(ctx, st.cfg.Bucket, obj.Key, minio.RemoveObjectOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", obj.Key, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove the run's objects under s3://%s/%s: %w", st.cfg.Bucket, st.prefix, err)
	}
	return nil
}

func runData(cmd *cobra.Command, f *dataFlags, args []string) (err error) {
	run := results.NewRun()
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

	dir, removeDir, err := workDir(f.dir)
	if err != nil {
		return err
	}
	defer func() {
		if removeDir {
			err = errors.Join(err, os.RemoveAll(dir))
		}
	}()
	if err := store.start(ctx, stderr); err != nil {
		return err
	}
	if err := store.exportEnv(); err != nil {
		return errors.Join(err, store.close())
	}
	defer func() { err = errors.Join(err, store.close()) }()
	if !f.keep {
		defer func() { err = errors.Join(err, store.removeRun(ctx)) }()
	}

	jsonOut := stdout
	if f.format == "table" {
		jsonOut = io.Discard
	}
	out, err := newOutput("jsonl", f.history, jsonOut, plainWriter{stderr})
	if err != nil {
		return err
	}
	var coll results.Collector
	sink := results.Tee{out.Sink(), &coll}
	defer func() {
		err = errors.Join(err, out.Close())
		tables := stderr
		if f.format == "table" {
			tables = stdout
		}
		err = errors.Join(err, dataplane.WriteTable(tables, coll.Snapshot()))
	}()

	cfg.Warehouse = store.shown()
	cfg.Log = &firstWrite{w: stderr}
	if isTerminal(stderr) {
		cfg.Progress = stderr
	}
	var errs []error
	for i, spec := range specs {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		lanes, closeLanes, err := openDataLanes(ctx, facs[i], spec, i, kinds, store, dir, props, f.durability, cfg.Log)
		if err != nil {
			// The target could not start: its lines say why; the others run.
			for _, name := range dataplane.Names(rowsOrDefault(cfg)) {
				if werr := sink.Write(run.Skipped(spec.name, name, err.Error(), map[string]any{"warehouse": store.shown(), "quick": f.quick})); werr != nil {
					return werr
				}
			}
			errs = append(errs, err)
			continue
		}
		rerr := dataplane.Run(ctx, cfg, lanes, sink)
		errs = append(errs, rerr, closeLanes())
	}
	if store.s3 && f.raw && ctx.Err() == nil {
		errs = append(errs, f.rawBaseline(ctx, run, store, kinds, coll.Snapshot(), sink, cfg.Log))
	}
	return errors.Join(errs...)
}

// rawBaseline measures plain S3 PUT and GET of one object of the mean
// Parquet file size the appends wrote, on every transport, with katbench
// transport's bench (its own s3.put/s3.get lines): the ceiling data.append
// and data.scan MiB/s are compared with.
func (f *dataFlags) rawBaseline(ctx context.Context, run *results.Run, store *dataStore, kinds []transport.Kind,
	recs []results.Record, sink results.Sink, log io.Writer,
) error {
	var bytes, files int64
	for _, r := range recs {
		if strings.HasPrefix(r.Scenario, dataplane.AppendPrefix) && r.Skipped == "" {
			b, _ := r.Params["parquet_bytes"].(int64)
			n, _ := r.Params["files"].(int64)
			bytes, files = bytes+b, files+n
		}
	}
	if files == 0 {
		return nil // nothing was appended: no size to compare at
	}
	size := min(bytes/files, s3bench.MaxSize)
	iters := f.rawIterations
	if iters == 0 {
		iters = 20
		if f.quick {
			iters = 8
		}
	}
	cfg := s3bench.Config{
		S3: store.cfg, EndpointName: store.name, Transports: kinds,
		Ops: []s3bench.Op{s3bench.Put, s3bench.Get}, Sizes: []int64{size}, Concurrency: []int{1},
		Iterations: iters, Rounds: min(f.rounds*2, iters), Quick: f.quick, Run: run, Log: log,
	}
	if err := s3bench.Run(ctx, cfg, sink); err != nil {
		return fmt.Errorf("raw S3 baseline at %s: %w", s3bench.FormatSize(size), err)
	}
	return nil
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
// its own warehouse under the run's prefix, with IO properties that pick
// the transport. A transport that falls back to one already open is
// measured once (as `katbench transport` does).
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
		if store.s3 {
			u, fallback, err := probeTransport(store, k)
			if err != nil {
				return nil, nil, err
			}
			if fallback != "" {
				fmt.Fprintf(log, "katbench: warning: transport %s unavailable for %s, using %s: %s\n", k, store.name, u, fallback)
			}
			if used[u] {
				continue
			}
			used[u] = true
			lane.Transport, lane.Requested, lane.Fallback = string(u), string(k), fallback
		}
		sub := fmt.Sprintf("%d-%s", idx, spec.name)
		if lane.Transport != "" {
			sub += "-" + lane.Transport
		}
		cdir := filepath.Join(dir, sub)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create %s: %w", cdir, err)
		}
		if store.s3 {
			lane.Location = store.warehouse(sub)
			lane.TableProps = map[string]string{"katbench.transport": string(k)}
		}
		p := maps.Clone(props)
		maps.Copy(p, store.ioProps(k))
		c, err := fac.New(ctx, competitors.Config{
			Args: spec.args, Dir: cdir, Durability: durability, Props: p,
			Log: log,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", spec.name, err)
		}
		opened = append(opened, c)
		lane.Catalog = c.Catalog()
		lane.Params = publicParams(c.Params())
		lanes = append(lanes, lane)
	}
	return lanes, closeAll, nil
}

// probeTransport reports which transport a client asking for k really
// gets on the store.
func probeTransport(store *dataStore, k transport.Kind) (transport.Kind, string, error) {
	c := store.cfg
	c.Transport = k
	_, info, err := s3.NewClient(c)
	if err != nil {
		return "", "", err
	}
	info.CloseIdle()
	return info.Used, info.Fallback, nil
}

// publicParams drops every param that could hold a secret (a competitor
// may copy client properties into its params).
func publicParams(p map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "secret") || strings.Contains(lk, "access-key") || strings.Contains(lk, "token") ||
			strings.Contains(lk, "credential") || strings.Contains(lk, "password") {
			continue
		}
		out[k] = v
	}
	return out
}
