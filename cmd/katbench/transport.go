package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// transportSettings are the transports' own settings from the
// environment (each transport names its variables, e.g. the io_uring wait
// mode), read once before any command runs and passed down as options.
var transportSettings transport.Settings

// loadTransportSettings reads transportSettings; a value a transport
// refuses is a usage error naming the variable.
func loadTransportSettings() error {
	s, err := transport.EnvSettings(os.LookupEnv)
	if err != nil {
		return usageError{err}
	}
	transportSettings = s
	return nil
}

// transportNames is the default of --transports: every registered one.
func transportNames() string {
	var s []string
	for _, k := range transport.Names() {
		s = append(s, string(k))
	}
	return strings.Join(s, ",")
}

// transportFlags are the flags of `katbench transport`.
type transportFlags struct {
	bucket      string
	accessKey   string
	secretKey   string
	region      string
	iterations  int
	rounds      int
	sizes       string
	concurrency string
	ops         string
	control     bool
	transports  string
	baseline    string
	scenario    string
	poolSize    int
	quick       bool
	history     string
	label       string
	format      string
	keepAlive   bool
	background  bool
	allowErrs   bool
	rate        transportRateFlags
}

var transportCmd = &cobra.Command{
	Use:   "transport [ENDPOINT]",
	Short: "Micro-bench the S3 byte transports (net/http vs io_uring): HEAD, GET, PUT",
	Long: `transport measures S3 HEAD, GET and PUT through minio-go over each byte
transport (net/http and io_uring), interleaved round by round in one run, against
a plaintext S3 ENDPOINT (e.g. versitygw: eval "$(containers/versitygw_up.sh)") and
against an in-process control S3 server (--control, on by default). With no
ENDPOINT it runs against the control alone.

One JSON line per (transport, op, size, concurrency) goes to stdout: target is
the transport that really ran, scenario s3.<op>[.<size>].c<concurrency>,
params.endpoint the store ("control" for the in-process one). A table per
endpoint with uring/http ratios goes to stderr.

Keys come from --access-key/--secret-key or AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, the region from --region or AWS_REGION.

io_uring requests wait for completions, by default, in the hold wait (a
blocking wait that keeps its Go P: fewest system calls and least CPU) when
the store runs in another process, and in the poll wait (parked in Go's
poller) when it runs in this one, as the control store does; each uring
line says which in params.uring_wait. KATBENCH_URING_WAIT forces one:
auto (the default), poll, block, adaptive, hold (see docs/transport.md, "The hold
wait"), sqpoll (a kernel thread submits for every ring and requests wait as in
poll: fewer io_uring_enter calls, but the thread takes a core while
requests flow; see docs/transport.md, "Kernel-side submission") or shared
(many connections on a few shared rings, one reaper submitting and reaping
for all; see docs/transport.md, "Hundreds of connections: shared rings").`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error { return runTransport(cmd, &transportOpts, args) },
}

var transportOpts transportFlags

func init() {
	env := s3.FromEnv(os.Getenv)
	f := &transportOpts
	fl := transportCmd.Flags()
	fl.StringVar(&f.bucket, "bucket", "katbench", "bucket to use (created when missing)")
	fl.StringVar(&f.accessKey, "access-key", env.AccessKey, "access key; env "+s3.EnvAccessKey)
	fl.StringVar(&f.secretKey, "secret-key", "", "secret key (default: env "+s3.EnvSecretKey+")")
	fl.StringVar(&f.region, "region", env.Region, "signing region; env "+s3.EnvRegion)
	fl.IntVar(&f.iterations, "iterations", 0, fmt.Sprintf("measured operations per (transport, op, size, concurrency) (default %d, %d with --quick)", s3bench.DefaultIterations, s3bench.QuickIterations))
	fl.IntVar(&f.rounds, "rounds", s3bench.DefaultRounds, "interleaved rounds the iterations are split into")
	fl.StringVar(&f.sizes, "sizes", "4KiB,64KiB,1MiB", "object sizes for GET and PUT, comma-separated")
	fl.StringVar(&f.concurrency, "concurrency", "1,8", "concurrency levels, comma-separated: 1..256, up to 1024 with --allow-high-concurrency")
	fl.StringVar(&f.ops, "ops", "head,get,put", "operations, comma-separated: head, get, put, range (8 KiB at random offsets of a 64 MiB object), list (one page of 100 keys)")
	fl.BoolVar(&f.control, "control", true, "also run against the in-process control S3 server")
	fl.StringVar(&f.transports, "transports", transportNames(), "transports to compare, comma-separated")
	fl.StringVar(&f.scenario, "scenario", "", "measure only the cells whose scenario matches these globs, comma-separated (e.g. 's3.get.*.c8,s3.head.*')")
	fl.StringVar(&f.baseline, "baseline", string(transport.Baseline()), "transport the table's ratios are taken over (their denominator)")
	fl.IntVar(&f.poolSize, "pool-size", 0, "keep-alive connections per transport (default: the largest concurrency)")
	fl.BoolVar(&f.quick, "quick", os.Getenv("BENCH_QUICK") == "1", fmt.Sprintf("%d iterations per cell unless --iterations says otherwise; env BENCH_QUICK=1", s3bench.QuickIterations))
	fl.StringVar(&f.history, "history", "", "also append result lines to this file (none by default)")
	registerLabel(fl, &f.label)
	fl.BoolVar(&f.allowErrs, "allow-errors", false, "exit 0 even when operations failed (recorded on every line as allow_errors)")
	fl.StringVar(&f.format, "format", "auto", formatHelp)
	fl.BoolVar(&f.keepAlive, "keep-alive", true, "the control server keeps connections alive; false answers Connection: close (params.endpoint control-close)")
	fl.BoolVar(&f.background, "background-load", false, "run two CPU-bound busy processes beside the bench (params.endpoint gets +load)")
	f.rate.register(fl)
	rootCmd.AddCommand(transportCmd)
}

// configs turns flags and args into one bench config per endpoint, control
// first, rejecting bad values before anything starts.
func (f *transportFlags) configs(args []string) (base s3bench.Config, endpoint string, err error) {
	if len(args) == 0 && !f.control {
		return base, "", usagef("nothing to measure: give an ENDPOINT or keep --control")
	}
	if len(args) == 1 {
		endpoint = args[0]
		if _, err := s3.ParseEndpoint(endpoint); err != nil {
			return base, "", usageError{err}
		}
	}
	if base.Ops, err = s3bench.ParseOps(f.ops); err != nil {
		return base, "", usagef("--ops: %v", err)
	}
	if base.Sizes, err = s3bench.ParseSizes(f.sizes); err != nil {
		return base, "", usagef("--sizes: %v", err)
	}
	if base.Concurrency, err = s3bench.ParseConcurrency(f.concurrency); err != nil {
		return base, "", usagef("--concurrency: %v", err)
	}
	if base.Transports, err = s3bench.ParseTransports(f.transports); err != nil {
		return base, "", usagef("--transports: %v", err)
	}
	if _, err := transport.ParseKind(f.baseline); err != nil {
		return base, "", usagef("--baseline: %v", err)
	}
	sel, err := scenarios.ParseSelectorOf(f.scenario, s3bench.Names(base))
	if err != nil {
		return base, "", usagef("--scenario: %v", err)
	}
	if sel != nil {
		base.Select = sel.Selects
	}
	if err := f.rate.apply(&base); err != nil {
		return base, "", err
	}
	if f.iterations < 0 || f.rounds < 1 || f.poolSize < 0 {
		return base, "", usagef("--iterations and --pool-size must not be negative, --rounds ≥ 1")
	}
	if f.bucket == "" {
		return base, "", usagef("--bucket is empty")
	}
	base.Iterations = f.iterations
	if base.Iterations == 0 && f.quick {
		base.Iterations = s3bench.QuickIterations
	}
	base.Rounds = f.rounds
	base.Quick = f.quick
	secret := f.secretKey
	if secret == "" {
		secret = os.Getenv(s3.EnvSecretKey)
	}
	base.S3 = s3.Config{
		Bucket: f.bucket, AccessKey: f.accessKey, SecretKey: secret,
		Region: f.region, PoolSize: f.poolSize, TransportSettings: transportSettings,
	}
	if endpoint != "" && (base.S3.AccessKey == "" || base.S3.SecretKey == "") {
		return base, "", usagef("ENDPOINT %s needs keys: --access-key/--secret-key or %s/%s", endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
	}
	return base, endpoint, nil
}

func runTransport(cmd *cobra.Command, f *transportFlags, args []string) (err error) {
	base, endpoint, err := f.configs(args)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	stdout := cmd.OutOrStdout()
	f.format = resolveFormat(f.format, stdout)
	prog := newProgress(stderr, useBars(stderr, stdout, f.format))
	defer prog.Close()
	jsonOut := stdout
	if f.format == "table" {
		jsonOut = io.Discard
	}
	// The shared output writes JSONL and history; the tables are printed
	// here, one per endpoint, because scenario names repeat across
	// endpoints. plainWriter keeps output from printing its own table.
	out, err := newOutput(validFormat(f.format), f.history, jsonOut, plainWriter{stderr})
	if err != nil {
		return err
	}
	out.label = f.label
	var coll results.Collector
	sink := results.Tee{out.Sink(), &coll}
	defer func() {
		prog.Close()
		// A line with failed operations (warm-up included) turns the run red.
		err = errors.Join(err, out.Close(), results.CheckErrors(coll.Snapshot()))
		tables := stderr
		if f.format == "table" {
			tables = stdout
		}
		if terr := s3bench.WriteTables(tables, coll.Snapshot(), f.baseline, terminalWidth(tables)); terr != nil {
			err = errors.Join(err, terr)
		}
	}()

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base.Run = results.NewRun()
	base.Run.Command = commandLine()
	base.Run.AllowErrors = f.allowErrs
	base.Log = &firstWrite{w: prog} // one warning line per run, not per endpoint
	base.Progress = prog.update

	eps := s3bench.Endpoints{Control: f.control, KeepAlive: f.keepAlive, Endpoint: endpoint}
	if f.background {
		stopLoad, err := startBackgroundLoad(2)
		if err != nil {
			return err
		}
		defer stopLoad()
		eps.Suffix = "+load"
	}
	return s3bench.RunEndpoints(ctx, base, eps, sink, prog)
}

// startBackgroundLoad starts n CPU-bound busy-loop processes (/bin/sh
// spinning), so a bench shares the machine's cores the way it does on a
// busy host. The returned func kills and reaps them.
func startBackgroundLoad(n int) (stop func(), err error) {
	var procs []*exec.Cmd
	stop = func() {
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	}
	for i := 0; i < n; i++ {
		p := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := p.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("--background-load: start busy loop: %w", err)
		}
		procs = append(procs, p)
	}
	return stop, nil
}

// validFormat maps --format onto what newOutput writes: the JSONL sink is
// always wanted (to stdout or discarded), so "table" becomes "jsonl" there
// and bad values still fail newOutput's check.
func validFormat(format string) string {
	if format == "table" {
		return "jsonl"
	}
	return format
}

// plainWriter hides that a writer is a terminal.
type plainWriter struct{ io.Writer }

// firstWrite passes the first write through and drops the rest, so a
// fallback found against every endpoint is announced once. Not safe for
// concurrent use; s3bench writes warnings from one goroutine.
type firstWrite struct {
	w    io.Writer
	done bool
}

func (f *firstWrite) Write(b []byte) (int, error) {
	if f.done {
		return len(b), nil
	}
	f.done = true
	return f.w.Write(b)
}
