package dataplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/usage"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// Command is `katbench data` as its flags give it: the run's Options and
// what surrounds the run — the warehouse and its store, the catalogs'
// directory and durability, client properties, the output. Register its
// flags with RegisterFlags, then Run it once. Not safe for concurrent
// use.
type Command struct {
	Options
	Output                                           lifecycle.Output
	Warehouse, Endpoint, CPUProfile, Dir, Durability string
	Raw                                              bool // also measure data.raw on an S3 warehouse
	Props                                            []string
}

// DefaultWarehouse is the warehouse root of a data run with no --warehouse.
const DefaultWarehouse = "s3://katbench/data"

// RegisterFlags adds the command's flags to fl, each filling its field;
// getenv gives the defaults the environment sets (the S3 endpoint,
// BENCH_QUICK, BENCH_DURABILITY).
func (c *Command) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	bench.LoopFlags{Rounds: &c.Rounds, Scenario: &c.Scenario, Quick: &c.Quick, DefaultRounds: DefaultRounds,
		Round:     "Here each round appends --rows once and scans once per lane, and does --commit-ops/--rounds small appends.",
		Examples:  strings.Join(SelectNames(DefaultRows), ", ") + "; an opt-in one runs only when named, and what a scenario needs runs with it",
		QuickDoes: "small run: 100k rows per append, 20 small appends"}.Register(fl, getenv)
	c.Output.RegisterFlags(fl, lifecycle.HistoryUse)
	fl.StringVar(&c.Rows, "rows", "", fmt.Sprintf("rows per append, e.g. 100k or 2M (default %s, %s with --quick)", FormatRows(DefaultRows), FormatRows(QuickRows)))
	fl.IntVar(&c.BatchRows, "batch-rows", DefaultBatchRows, "rows per Arrow record batch of the appended stream")
	fl.StringVar(&c.TargetFileSize, "target-file-size", "", "write.target-file-size-bytes, e.g. 64MiB (default: iceberg-go's, 512MiB); also sets write.parquet.row-group-size-bytes to an eighth of it and runs the appends under a Go memory limit of twice it, at least 128MiB (not with GOMEMLIMIT set or on the in-process control store)")
	fl.StringVar(&c.RowGroupRows, "row-group-rows", "", "write.parquet.row-group-limit, e.g. 128k: the writer buffers one encoded row group per open file (default: iceberg-go's, 1048576)")
	fl.StringVar(&c.Compression, "compression", "zstd", "Parquet codec: "+strings.Join(Compressions, "|"))
	fl.StringVar(&c.Transports, "transports", transport.NamesList(), "S3 transports to compare, comma-separated, interleaved round by round")
	fl.StringVar(&c.Baseline, "baseline", string(transport.Baseline()), "transport the table's ratios are taken over (their denominator)")
	fl.IntVar(&c.CommitOps, "commit-ops", 0, fmt.Sprintf("small appends per transport in data.commit.latency (default %d, %d with --quick)", DefaultCommitOps, QuickCommitOps))
	fl.IntVar(&c.CommitRows, "commit-rows", DefaultCommitRows, "rows per small append")
	fl.IntVar(&c.ScanConcurrency, "scan-concurrency", 0, "iceberg-go scan concurrency (default GOMAXPROCS)")
	fl.Uint64Var(&c.Seed, "seed", DefaultSeed, "seed of the events generator")
	fl.IntVar(&c.RawIterations, "raw-iterations", 0, fmt.Sprintf("raw PUTs and GETs per transport of data.raw (default %d, %d with --quick)", RawIterations(false), RawIterations(true)))
	fl.StringVar(&c.Namespace, "namespace", "", "namespace of the run's tables (default katbench_data_<run id>)")
	fl.BoolVar(&c.Keep, "keep", false, "keep the run's tables and their objects (default: tables dropped, objects removed); with --dir, each lane's embedded catalog stays in DIR/<i>-<target>-<transport>")
	fl.StringVar(&c.Warehouse, "warehouse", "", "warehouse root: s3://bucket/prefix (default "+DefaultWarehouse+") or file:///path; each run writes under <root>/<run id>/")
	fl.StringVar(&c.Endpoint, "s3-endpoint", getenv(s3.EnvEndpoint), "S3 endpoint http(s)://host:port of an s3:// warehouse; env "+s3.EnvEndpoint+"; keys from "+s3.EnvAccessKey+", "+s3.EnvSecretKey+", region from "+s3.EnvRegion+" (default: the in-process control store)")
	fl.BoolVar(&c.Raw, "raw", true, "on an S3 warehouse, also measure data.raw: raw S3 PUT and GET (katbench transport's s3.put/s3.get) at the mean Parquet file size, for the IO-efficiency ratios")
	fl.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the measured run (go tool pprof) to this file")
	fl.StringVar(&c.Dir, "dir", "", "keep catalogs under this directory (default: a temp dir removed after the run)")
	serve.RegisterDurabilityFlag(fl, &c.Durability, getenv)
	fl.StringArrayVar(&c.Props, "prop", nil, "client property k=v for REST competitors (repeatable)")
}

func settingsErr(err error) error { return usage.Wrap(bench.ErrSettings, err) }

// targets are the competitors args name, as for `katbench run` (default
// embedded); getenv is what the environment says about each.
func (c *Command) targets(args []string, getenv func(string) string) ([]CompetitorSetup, error) {
	if len(args) == 0 {
		args = []string{"embedded"}
	}
	props, err := competitors.ParseProps(c.Props)
	if err != nil {
		return nil, usage.Errorf(bench.ErrSettings, "--prop %v", err)
	}
	targets := make([]CompetitorSetup, len(args))
	for i, a := range args {
		name, targs := competitors.ParseTarget(a)
		fac, err := competitors.Lookup(name)
		if err != nil {
			return nil, settingsErr(err)
		}
		targets[i] = CompetitorSetup{Factory: fac, Name: name, Args: targs, Index: i, Props: props, Durability: c.Durability,
			Env: competitors.ReadEnv(name, getenv)}
	}
	return targets, nil
}

// Run runs the data plane (RunAll) on the targets args name, in the
// process p: bad input is an error before anything is created, and the
// store is checked (reachable, keys accepted) before --dir is. The lines
// go out through the command's lifecycle, with the data table
// (WriteTable); endpointGiven says whether --s3-endpoint was given (the
// store's description says where its endpoint came from).
func (c *Command) Run(ctx context.Context, p lifecycle.Process, args []string, endpointGiven bool) (err error) {
	cfg, kinds, err := c.Options.Config()
	if err != nil {
		return err
	}
	if c.Durability != "" {
		if _, err := catalog.ParseDurability(c.Durability); err != nil {
			return settingsErr(err)
		}
	}
	b, err := p.Bench(lifecycle.Settings{Output: c.Output, Tables: func(w io.Writer, recs []results.Record) error {
		return WriteTable(w, recs, c.Baseline)
	}})
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	targets, err := c.targets(args, p.Getenv)
	if err != nil {
		return err
	}
	env := s3.FromEnv(p.Getenv)
	env.Endpoint, env.TransportSettings = c.Endpoint, p.Transport
	store, err := workspace.ParseStore(c.Warehouse, DefaultWarehouse, env, b.Run.ID)
	if err != nil {
		return settingsErr(err)
	}
	fmt.Fprintf(p.Stderr, "katbench data: warehouse %s on %s\n", store.Root.URI, store.Describe(endpointGiven))
	if err := store.Open(ctx, p.Stderr); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	dir, err := b.WorkDir(c.Dir)
	if err != nil {
		return err
	}
	if err := b.Open(ctx); err != nil {
		return err
	}
	if !cfg.KeepTables {
		defer func() { err = errors.Join(err, store.RemoveRun(b.Ctx)) }()
	}
	if c.CPUProfile != "" {
		stopProfile, err := output.StartCPUProfile(c.CPUProfile)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stopProfile()) }()
	}
	cfg.Run, cfg.Warehouse, cfg.Log, cfg.Progress = b.Run, store.Root.Shown(), b.Log, b.Update
	// The user's GOMEMLIMIT wins over the appends' own.
	cfg.MemoryLimit = StoreMemoryLimit(cfg.TargetFileSize, store, p.Getenv("GOMEMLIMIT") != "")
	if c.Raw {
		iters := c.RawIterations
		if iters == 0 {
			iters = RawIterations(cfg.Quick)
		}
		cfg.Baseline = NewBaseline(store, kinds, iters, min(cfg.Rounds*2, iters), b.Run, b.Log, cfg.Quick)
	}
	return RunAll(b.Ctx, cfg, targets, kinds, store, dir, b.Sink)
}
