package s3bench

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/disturb"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// Command is `katbench transport` as its flags give it: the bench's
// Options and what surrounds the bench — the store's bucket and keys, the
// control store, load beside it, the output. Register its flags with
// RegisterFlags, then Run it once. Not safe for concurrent use.
type Command struct {
	Options
	Output                               lifecycle.Output
	Bucket, AccessKey, SecretKey, Region string
	PoolSize                             int // keep-alive connections per transport; 0: the largest concurrency
	Control, KeepAlive                   bool
	Background                           bool // two CPU-bound busy processes beside the bench
	AllowErrors                          bool
	oldOps                               string // --ops, the old --s3-ops; "" when not given
}

// RegisterFlags adds the command's flags to fl, each filling its field;
// getenv gives the defaults the environment sets (keys, region,
// BENCH_QUICK). The secret key's default is read by Run, never shown.
func (c *Command) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	env := s3.FromEnv(getenv)
	bench.LoopFlags{Rounds: &c.Rounds, Scenario: &c.Scenario, Quick: &c.Quick, DefaultRounds: DefaultRounds,
		Round: "Here --iterations and --duration are split across the rounds.", Examples: "e.g. 's3.get.*.c8,s3.head.*'",
		QuickDoes: fmt.Sprintf("%d iterations per cell unless --iterations says otherwise", QuickIterations)}.Register(fl, getenv)
	c.Output.RegisterFlags(fl, lifecycle.HistoryUse)
	fl.StringVar(&c.Bucket, "bucket", "katbench", "bucket to use (created when missing)")
	fl.StringVar(&c.AccessKey, "access-key", env.AccessKey, "access key; env "+s3.EnvAccessKey)
	fl.StringVar(&c.SecretKey, "secret-key", "", "secret key (default: env "+s3.EnvSecretKey+")")
	fl.StringVar(&c.Region, "region", env.Region, "signing region; env "+s3.EnvRegion)
	fl.IntVar(&c.Iterations, "iterations", 0, fmt.Sprintf("measured operations per (transport, op, size, concurrency) (default %d, %d with --quick)", DefaultIterations, QuickIterations))
	fl.StringVar(&c.Sizes, "sizes", "4KiB,64KiB,1MiB", "object sizes for GET and PUT, comma-separated")
	fl.StringVar(&c.Concurrency, "concurrency", "1,8", "concurrency levels, comma-separated: 1..256, up to 1024 with --allow-high-concurrency")
	fl.StringVar(&c.Ops, OpsFlag, "head,get,put", "S3 operations to measure, comma-separated: "+OpsDoc())
	fl.Var(oldOps{&c.oldOps}, "ops", "the old name of --"+OpsFlag)
	_ = fl.MarkHidden("ops") // registered above: never an error
	fl.StringVar(&c.Transports, "transports", transport.NamesList(), "transports to compare, comma-separated")
	fl.StringVar(&c.Baseline, "baseline", string(transport.Baseline()), "transport the table's ratios are taken over (their denominator)")
	fl.StringVar(&c.Rates, "rate", "", "also offer each cell these rates in an open loop, comma-separated: ops/s (2000) or percentages of the baseline transport's closed-loop ops/s in the same cell of this run (25%,50%,75%); latency from the intended start")
	fl.DurationVar(&c.Duration, "duration", DefaultDuration, "open-loop time per (transport, cell, rate), split into --rounds")
	fl.BoolVar(&c.ClientFloor, "floor", false, "also measure the floor: the same client and workers with every request answered from memory (target floor), what the client costs per operation without any transport")
	fl.BoolVar(&c.AllowHighConcurrency, "allow-high-concurrency", false, "admit --concurrency levels above 256, up to 1024")
	fl.Int64Var(&c.Seed, "seed", DefaultSeed, "seed of the ranged GETs' offsets (op range)")
	fl.BoolVar(&c.Control, "control", true, "also run against the in-process control S3 server")
	fl.IntVar(&c.PoolSize, "pool-size", 0, "keep-alive connections per transport (default: the largest concurrency)")
	fl.BoolVar(&c.AllowErrors, "allow-errors", false, "exit 0 even when operations failed (recorded on every line as allow_errors)")
	fl.BoolVar(&c.KeepAlive, "keep-alive", true, "the control server keeps connections alive; false answers Connection: close (params.endpoint control-close)")
	fl.BoolVar(&c.Background, "background-load", false, "run two CPU-bound busy processes beside the bench (params.endpoint gets +load)")
}

// OpsFlag is the flag naming the S3 operations to measure. It was --ops,
// which on `katbench run` is a count of operations; the old name still
// works (the commands recorded on older lines stay runnable) and says
// once on stderr that it is now this one.
const OpsFlag = "s3-ops"

// oldOps is the transport bench's old --ops: it fills Command.oldOps,
// which Run takes as --s3-ops with a notice.
type oldOps struct{ p *string }

func (v oldOps) String() string     { return *v.p }
func (v oldOps) Type() string       { return "string" }
func (v oldOps) Set(s string) error { *v.p = s; return nil }

func commandf(format string, args ...any) error {
	return usage.Errorf(bench.ErrSettings, format, args...)
}

// config turns the settings and args (at most one ENDPOINT) into the
// bench's config and endpoints, rejecting bad values before anything
// starts.
func (c *Command) config(args []string, p lifecycle.Process, changed func(string) bool) (Config, Endpoints, error) {
	eps := Endpoints{Control: c.Control, KeepAlive: c.KeepAlive}
	if c.oldOps != "" {
		if changed(OpsFlag) {
			return Config{}, eps, commandf("--ops is the old name of --%s: give one of them", OpsFlag)
		}
		fmt.Fprintf(p.Stderr, "katbench transport: --ops is now --%s (the S3 operations to measure; --ops of run is a count): measuring --%s %s\n", OpsFlag, OpsFlag, c.oldOps)
		c.Ops = c.oldOps
	}
	if len(args) == 0 && !c.Control {
		return Config{}, eps, commandf("nothing to measure: give an ENDPOINT or keep --control")
	}
	if len(args) == 1 {
		eps.Endpoint = args[0]
		if _, err := s3.ParseEndpoint(eps.Endpoint); err != nil {
			return Config{}, eps, usage.Wrap(bench.ErrSettings, err)
		}
	}
	cfg, err := c.Options.Config()
	switch {
	case err != nil:
		return cfg, eps, err
	case c.PoolSize < 0:
		return cfg, eps, commandf("--pool-size must not be negative")
	case c.Bucket == "":
		return cfg, eps, commandf("--bucket is empty")
	}
	secret := c.SecretKey
	if secret == "" {
		secret = p.Getenv(s3.EnvSecretKey)
	}
	cfg.S3 = s3.Config{Bucket: c.Bucket, AccessKey: c.AccessKey, SecretKey: secret,
		Region: c.Region, PoolSize: c.PoolSize, TransportSettings: p.Transport}
	if eps.Endpoint != "" && (cfg.S3.AccessKey == "" || cfg.S3.SecretKey == "") {
		return cfg, eps, commandf("ENDPOINT %s needs keys: --access-key/--secret-key or %s/%s", eps.Endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
	}
	return cfg, eps, nil
}

// Run measures every transport against the stores args and the settings
// name (RunEndpoints), in the process p; changed reports whether the user
// gave a flag. Bad input is an error before anything starts. The lines go out through the command's lifecycle, with
// a table per endpoint (WriteTables).
func (c *Command) Run(ctx context.Context, p lifecycle.Process, args []string, changed func(string) bool) (err error) {
	cfg, eps, err := c.config(args, p, changed)
	if err != nil {
		return err
	}
	b, err := p.Bench(lifecycle.Settings{Output: c.Output, AllowErrors: c.AllowErrors, Tables: func(w io.Writer, recs []results.Record) error {
		return WriteTables(w, recs, c.Baseline, output.TerminalWidth(w))
	}})
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	if err := b.Open(ctx); err != nil {
		return err
	}
	cfg.Run, cfg.Log, cfg.Progress = b.Run, b.Log, b.Update
	if c.Background {
		stopLoad, err := disturb.StartBusyLoad(2)
		if err != nil {
			return err
		}
		defer stopLoad()
		eps.Suffix = "+load"
	}
	return RunEndpoints(b.Ctx, cfg, eps, b.Sink, b.Progress)
}
