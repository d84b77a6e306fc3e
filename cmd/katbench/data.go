package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/scenarios/dataplane"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// dataFlags are the flags of `katbench data`.
type dataFlags struct {
	loop                                             loopFlags
	opts                                             dataplane.Options
	warehouse, endpoint, cpuProfile, dir, durability string
	raw                                              bool
	props                                            []string
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

Scenarios (katbench list: data.*), one JSON line per (target, transport):
  data.append.<rows>   one append of --rows rows per round; rows/s and Parquet
                       MiB/s in measures, histogram = the commit phase
  data.scan            one full scan per round, checksum verified
  data.commit.latency  small appends (one small file each), end to end
  data.overwrite       whole-table overwrites, checksum verified (only when
                       named by --scenario)
  data.raw             on an s3:// warehouse, raw S3 PUT and GET at the mean
                       Parquet file size (s3.put, s3.get lines; --raw)

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
	f, o := &dataOpts, &dataOpts.opts
	fl := dataCmd.Flags()
	f.loop.register(fl, dataplane.DefaultRounds, "Here each round appends --rows once and scans once per lane, and does --commit-ops/--rounds small appends.",
		strings.Join(dataplane.SelectNames(dataplane.DefaultRows), ", ")+"; an opt-in one runs only when named, and what a scenario needs runs with it", "small run: 100k rows per append, 20 small appends")
	fl.StringVar(&o.Rows, "rows", "", fmt.Sprintf("rows per append, e.g. 100k or 2M (default %s, %s with --quick)", dataplane.FormatRows(dataplane.DefaultRows), dataplane.FormatRows(dataplane.QuickRows)))
	fl.IntVar(&o.BatchRows, "batch-rows", dataplane.DefaultBatchRows, "rows per Arrow record batch of the appended stream")
	fl.StringVar(&o.TargetFileSize, "target-file-size", "", "write.target-file-size-bytes, e.g. 64MiB (default: iceberg-go's, 512MiB); also sets write.parquet.row-group-size-bytes to an eighth of it and runs the appends under a Go memory limit of twice it, at least 128MiB (not with GOMEMLIMIT set or on the in-process control store)")
	fl.StringVar(&o.RowGroupRows, "row-group-rows", "", "write.parquet.row-group-limit, e.g. 128k: the writer buffers one encoded row group per open file (default: iceberg-go's, 1048576)")
	fl.StringVar(&o.Compression, "compression", "zstd", "Parquet codec: "+strings.Join(dataplane.Compressions, "|"))
	fl.StringVar(&o.Transports, "transports", transport.NamesList(), "S3 transports to compare, comma-separated, interleaved round by round")
	fl.StringVar(&o.Baseline, "baseline", string(transport.Baseline()), "transport the table's ratios are taken over (their denominator)")
	fl.IntVar(&o.CommitOps, "commit-ops", 0, fmt.Sprintf("small appends per transport in data.commit.latency (default %d, %d with --quick)", dataplane.DefaultCommitOps, dataplane.QuickCommitOps))
	fl.IntVar(&o.CommitRows, "commit-rows", dataplane.DefaultCommitRows, "rows per small append")
	fl.IntVar(&o.ScanConcurrency, "scan-concurrency", 0, "iceberg-go scan concurrency (default GOMAXPROCS)")
	fl.Uint64Var(&o.Seed, "seed", dataplane.DefaultSeed, "seed of the events generator")
	fl.IntVar(&o.RawIterations, "raw-iterations", 0, fmt.Sprintf("raw PUTs and GETs per transport of data.raw (default %d, %d with --quick)", dataplane.RawIterations(false), dataplane.RawIterations(true)))
	fl.StringVar(&o.Namespace, "namespace", "", "namespace of the run's tables (default katbench_data_<run id>)")
	fl.BoolVar(&o.Keep, "keep", false, "keep the run's tables and their objects (default: tables dropped, objects removed); with --dir, each lane's embedded catalog stays in DIR/<i>-<target>-<transport>")
	fl.StringVar(&f.warehouse, "warehouse", "", "warehouse root: s3://bucket/prefix (default s3://katbench/data) or file:///path; each run writes under <root>/<run id>/")
	fl.StringVar(&f.endpoint, "s3-endpoint", os.Getenv(s3.EnvEndpoint), "S3 endpoint http(s)://host:port of an s3:// warehouse; env "+s3.EnvEndpoint+"; keys from "+s3.EnvAccessKey+", "+s3.EnvSecretKey+", region from "+s3.EnvRegion+" (default: the in-process control store)")
	fl.BoolVar(&f.raw, "raw", true, "on an S3 warehouse, also measure data.raw: raw S3 PUT and GET (katbench transport's s3.put/s3.get) at the mean Parquet file size, for the IO-efficiency ratios")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured run (go tool pprof) to this file")
	fl.StringVar(&f.dir, "dir", "", "keep catalogs under this directory (default: a temp dir removed after the run)")
	serve.RegisterDurabilityFlag(fl, &f.durability, os.Getenv)
	fl.StringArrayVar(&f.props, "prop", nil, "client property k=v for REST competitors (repeatable)")
	rootCmd.AddCommand(dataCmd)
}

// targets are the competitors of args (default embedded).
func (f *dataFlags) targets(args []string) ([]dataplane.CompetitorSetup, error) {
	if len(args) == 0 {
		args = []string{"embedded"}
	}
	props, err := scenarios.ParseProps(f.props)
	if err != nil {
		return nil, err
	}
	targets := make([]dataplane.CompetitorSetup, len(args))
	for i, a := range args {
		spec := scenarios.ParseTargetSpec(a)
		fac, err := competitors.Lookup(spec.Name)
		if err != nil {
			return nil, asUsage(err)
		}
		targets[i] = dataplane.CompetitorSetup{Factory: fac, Name: spec.Name, Args: spec.Args, Index: i, Props: props, Durability: f.durability,
			Env: competitors.ReadEnv(spec.Name, os.Getenv)}
	}
	return targets, nil
}

func runData(cmd *cobra.Command, f *dataFlags, args []string) (err error) {
	f.opts.Rounds, f.opts.Quick, f.opts.Scenario = f.loop.rounds, f.loop.quick, f.loop.scenario
	cfg, kinds, err := f.opts.Config()
	if err != nil {
		return err
	}
	if f.durability != "" {
		if _, err := catalog.ParseDurability(f.durability); err != nil {
			return asUsage(err)
		}
	}
	b, err := f.loop.lifecycle(cmd, false, func(w io.Writer, recs []results.Record) error {
		return dataplane.WriteTable(w, recs, f.opts.Baseline)
	})
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	targets, err := f.targets(args)
	if err != nil {
		return err
	}
	env := s3.FromEnv(os.Getenv)
	env.Endpoint, env.TransportSettings = f.endpoint, transportSettings
	store, err := workspace.ParseStore(f.warehouse, "s3://katbench/data", env, b.Run.ID)
	if err != nil {
		return asUsage(err)
	}
	// The store is checked before --dir is created: an unreachable
	// endpoint or refused keys leave nothing behind.
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "katbench data: warehouse %s on %s\n", store.Root.URI, store.Describe(cmd.Flags().Changed("s3-endpoint")))
	if err := store.Open(cmd.Context(), stderr); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	dir, err := b.WorkDir(f.dir)
	if err != nil {
		return err
	}
	if err := b.Open(cmd.Context()); err != nil {
		return err
	}
	if !cfg.KeepTables {
		defer func() { err = errors.Join(err, store.RemoveRun(b.Ctx)) }()
	}
	if f.cpuProfile != "" {
		stopProfile, err := output.StartCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stopProfile()) }()
	}
	cfg.Run, cfg.Warehouse, cfg.Log, cfg.Progress = b.Run, store.Root.Shown(), b.Log, b.Update
	// The user's GOMEMLIMIT wins over the appends' own.
	cfg.MemoryLimit = dataplane.StoreMemoryLimit(cfg.TargetFileSize, store, os.Getenv("GOMEMLIMIT") != "")
	if f.raw {
		iters := f.opts.RawIterations
		if iters == 0 {
			iters = dataplane.RawIterations(cfg.Quick)
		}
		cfg.Baseline = dataplane.NewBaseline(store, kinds, iters, min(cfg.Rounds*2, iters), b.Run, b.Log, cfg.Quick)
	}
	return dataplane.RunAll(b.Ctx, cfg, targets, kinds, store, dir, b.Sink)
}
