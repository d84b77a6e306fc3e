package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/disturb"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// transportFlags are the flags of `katbench transport`.
type transportFlags struct {
	bench                                loopFlags
	opts                                 s3bench.Options
	bucket, accessKey, secretKey, region string
	poolSize                             int
	control, keepAlive, background       bool
	allowErrs                            bool
}

var transportCmd = &cobra.Command{
	Use:   "transport [ENDPOINT]",
	Short: "Micro-bench the S3 byte transports (net/http vs io_uring): HEAD, GET, PUT",
	Long: `transport measures S3 operations (katbench list: s3.*) through minio-go over
each byte transport (net/http and io_uring), interleaved round by round in one
run, against a plaintext S3 ENDPOINT (e.g. versitygw: eval
"$(containers/versitygw_up.sh)") and against an in-process control S3 server
(--control, on by default). With no ENDPOINT it runs against the control alone.

One JSON line per (transport, op, size, concurrency) goes to stdout: target is
the transport that really ran, scenario s3.<op>[.<size>].c<concurrency>,
params.endpoint the store ("control" for the in-process one). A table per
endpoint with ratios over --baseline goes to stderr. --floor adds target floor:
the same client with every request answered from memory, the lowest CPU per
operation any transport could reach in that cell (docs/transport.md, "The
floor").

Keys come from --access-key/--secret-key or AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, the region from --region or AWS_REGION.

io_uring requests wait for completions, by default, in the hold wait (a
blocking wait that keeps its Go P) when the store runs in another process, and
in the poll wait when it runs in this one, as the control store does; each
uring line says which in params.uring_wait. KATBENCH_URING_WAIT forces one:
auto (the default), poll, block, adaptive, hold, sqpoll or shared (see
docs/transport.md: "The hold wait", "Kernel-side submission", "Hundreds of
connections: shared rings").`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error { return runTransport(cmd, &transportOpts, args) },
}

var transportOpts transportFlags

func init() {
	env := s3.FromEnv(os.Getenv)
	f, o := &transportOpts, &transportOpts.opts
	fl := transportCmd.Flags()
	f.bench.register(fl, s3bench.DefaultRounds, "Here --iterations and --duration are split across the rounds.",
		"e.g. 's3.get.*.c8,s3.head.*'", fmt.Sprintf("%d iterations per cell unless --iterations says otherwise", s3bench.QuickIterations))
	fl.StringVar(&f.bucket, "bucket", "katbench", "bucket to use (created when missing)")
	fl.StringVar(&f.accessKey, "access-key", env.AccessKey, "access key; env "+s3.EnvAccessKey)
	fl.StringVar(&f.secretKey, "secret-key", "", "secret key (default: env "+s3.EnvSecretKey+")")
	fl.StringVar(&f.region, "region", env.Region, "signing region; env "+s3.EnvRegion)
	fl.IntVar(&o.Iterations, "iterations", 0, fmt.Sprintf("measured operations per (transport, op, size, concurrency) (default %d, %d with --quick)", s3bench.DefaultIterations, s3bench.QuickIterations))
	fl.StringVar(&o.Sizes, "sizes", "4KiB,64KiB,1MiB", "object sizes for GET and PUT, comma-separated")
	fl.StringVar(&o.Concurrency, "concurrency", "1,8", "concurrency levels, comma-separated: 1..256, up to 1024 with --allow-high-concurrency")
	fl.StringVar(&o.Ops, "ops", "head,get,put", "operations, comma-separated: "+s3bench.OpsDoc())
	fl.StringVar(&o.Transports, "transports", transport.NamesList(), "transports to compare, comma-separated")
	fl.StringVar(&o.Baseline, "baseline", string(transport.Baseline()), "transport the table's ratios are taken over (their denominator)")
	fl.StringVar(&o.Rates, "rate", "", "also offer each cell these rates in an open loop, comma-separated: ops/s (2000) or percentages of the baseline transport's closed-loop ops/s in the same cell of this run (25%,50%,75%); latency from the intended start")
	fl.DurationVar(&o.Duration, "duration", s3bench.DefaultDuration, "open-loop time per (transport, cell, rate), split into --rounds")
	fl.BoolVar(&o.Floor, "floor", false, "also measure the floor: the same client and workers with every request answered from memory (target floor), what the client costs per operation without any transport")
	fl.BoolVar(&o.AllowHighConcurrency, "allow-high-concurrency", false, "admit --concurrency levels above 256, up to 1024")
	fl.Int64Var(&o.Seed, "seed", s3bench.DefaultSeed, "seed of the ranged GETs' offsets (op range)")
	fl.BoolVar(&f.control, "control", true, "also run against the in-process control S3 server")
	fl.IntVar(&f.poolSize, "pool-size", 0, "keep-alive connections per transport (default: the largest concurrency)")
	fl.BoolVar(&f.allowErrs, "allow-errors", false, "exit 0 even when operations failed (recorded on every line as allow_errors)")
	fl.BoolVar(&f.keepAlive, "keep-alive", true, "the control server keeps connections alive; false answers Connection: close (params.endpoint control-close)")
	fl.BoolVar(&f.background, "background-load", false, "run two CPU-bound busy processes beside the bench (params.endpoint gets +load)")
	rootCmd.AddCommand(transportCmd)
}

// config turns flags and args into the bench's config and endpoint,
// rejecting bad values before anything starts.
func (f *transportFlags) config(args []string) (s3bench.Config, string, error) {
	if len(args) == 0 && !f.control {
		return s3bench.Config{}, "", usagef("nothing to measure: give an ENDPOINT or keep --control")
	}
	var endpoint string
	if len(args) == 1 {
		endpoint = args[0]
		if _, err := s3.ParseEndpoint(endpoint); err != nil {
			return s3bench.Config{}, "", asUsage(err)
		}
	}
	f.opts.Rounds, f.opts.Quick, f.opts.Scenario = f.bench.rounds, f.bench.quick, f.bench.scenario
	cfg, err := f.opts.Config()
	switch {
	case err != nil:
		return cfg, "", err
	case f.poolSize < 0:
		return cfg, "", usagef("--pool-size must not be negative")
	case f.bucket == "":
		return cfg, "", usagef("--bucket is empty")
	}
	secret := f.secretKey
	if secret == "" {
		secret = os.Getenv(s3.EnvSecretKey)
	}
	cfg.S3 = s3.Config{Bucket: f.bucket, AccessKey: f.accessKey, SecretKey: secret,
		Region: f.region, PoolSize: f.poolSize, TransportSettings: transportSettings}
	if endpoint != "" && (cfg.S3.AccessKey == "" || cfg.S3.SecretKey == "") {
		return cfg, "", usagef("ENDPOINT %s needs keys: --access-key/--secret-key or %s/%s", endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
	}
	return cfg, endpoint, nil
}

func runTransport(cmd *cobra.Command, f *transportFlags, args []string) (err error) {
	cfg, endpoint, err := f.config(args)
	if err != nil {
		return err
	}
	b, err := f.bench.lifecycle(cmd, f.allowErrs, func(w io.Writer, recs []results.Record) error {
		return s3bench.WriteTables(w, recs, f.opts.Baseline, output.TerminalWidth(w))
	})
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	if err := b.Open(cmd.Context()); err != nil {
		return err
	}
	cfg.Run, cfg.Log, cfg.Progress = b.Run, b.Log, b.Update
	eps := s3bench.Endpoints{Control: f.control, KeepAlive: f.keepAlive, Endpoint: endpoint}
	if f.background {
		stopLoad, err := disturb.StartBusyLoad(2)
		if err != nil {
			return err
		}
		defer stopLoad()
		eps.Suffix = "+load"
	}
	return s3bench.RunEndpoints(b.Ctx, cfg, eps, b.Sink, b.Progress)
}
