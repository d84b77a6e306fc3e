package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/commitcheck"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios"
)

// errAnomalies: a checked history had an anomaly (exit 1; the lines are
// written first).
var errAnomalies = errors.New("commit anomalies found")

// verifyFlags are `katbench verify`'s flags.
type verifyFlags struct {
	cells                    commitcheck.Settings
	out, dir, history, label string
}

// killable reports whether --kill-every can crash a competitor: one of
// ours, served by a child `katbench serve` on a fixed address and state
// directory (competitors.Factory.Serve), or one whose state is its
// directory, written by a child `katbench verify-writers`
// (competitors.Factory.DirState).
func killable(name string) bool {
	fac, err := competitors.Lookup(name)
	return err == nil && (fac.Serve != "" || fac.DirState)
}

// killableNames lists the competitors --kill-every can crash.
func killableNames() string {
	var names []string
	for _, fac := range competitors.All() {
		if fac.Serve != "" || fac.DirState {
			names = append(names, fac.Name)
		}
	}
	return strings.Join(names, ", ")
}

func init() {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify COMPETITOR...",
		Short: "Check that a catalog keeps every acknowledged commit, exactly once, on a linear history",
		Long: `verify drives W writers committing to K tables through each competitor with
iceberg-go's own commit path (a transaction appending one data file; its
snapshot summary carries a unique katbench.marker) and records every attempt:
acknowledged, refused (a conflict left after every retry) or indeterminate (a
timeout, a 5xx, a lost connection). Then it reads every table's history back
through the catalog — snapshots, parents, sequence numbers, snapshot log,
metadata log, refs, each metadata-log file and manifest list — and reports,
with evidence: lost (acknowledged, absent), duplicated (a marker twice),
phantom (refused, present), forked (a snapshot whose parent is not the
previous head, or a sequence number that does not increase), unreadable.
Indeterminate commits present or absent are counted, never an error.

One line per cell (competitor × writers × tables) goes to --out (or stdout),
with commit p50/p99 (retries included) and the costs of contention:
conflicts_per_commit, retries_per_commit, failed_after_retries_pct,
round_trips_per_commit. Exit 1 when any anomaly was found (the lines are
still written); docs/verify.md explains every check.`,
		Example: `  katbench verify embedded rest --writers 1,16,64 --tables 1
  katbench verify nessie --writers 16 --commits 500 --out verify.jsonl
  katbench verify embedded --no-markers --writers 16   # the markers' own cost
  katbench verify rest --writers 16 --duration 60s --kill-every 2s   # kill -9 our server meanwhile
  katbench verify embedded --writers 16 --duration 30s --kill-every 1s   # kill -9 the writers' process on the catalog's files
  katbench verify embedded rest grpc --writers 64 --commit-retries 4,8,16,32,64 --commit-backoff 10ms:1s`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, &f, args) },
	}
	fl := cmd.Flags()
	f.cells.RegisterFlags(fl)
	fl.StringVar(&f.out, "out", "", "append the result lines to this file (default: stdout, after each cell's summary)")
	fl.StringVar(&f.history, "history", "", "also append the result lines to this file (none by default; docs/verify.md's tables are generated from runs recorded with --history bench_history.jsonl --label NAME)")
	results.RegisterLabelFlag(fl, &f.label)
	fl.StringVar(&f.dir, "dir", "", "keep catalogs and warehouses under this directory (default: a temp dir removed after the run)")
	rootCmd.AddCommand(cmd)
	rootCmd.AddCommand(&cobra.Command{
		Use:    "verify-writers SPEC",
		Short:  "Run the writers of a verify cell on a catalog directory, reporting each attempt on stdout (verify --kill-every runs and kills it)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := commitcheck.ParseChildSpec(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			return commitcheck.RunChild(cmd.Context(), spec, os.Stdout)
		},
	})
}

func runVerify(cmd *cobra.Command, f *verifyFlags, args []string) (err error) {
	cells, err := f.cells.Check(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	specs, facs, err := scenarios.LookupTargets(parseTargets(args), scenarios.Options{})
	if err != nil {
		return err
	}
	if cells.KillEvery < 0 {
		return usagef("--kill-every %s: want a positive duration like 2s", cells.KillEvery)
	}
	if (cells.PIDFile == "") != (cells.Restart == "") || (cells.PIDFile != "" && cells.KillEvery == 0) {
		return usagef("--kill-pid-file and --restart go together, with --kill-every")
	}
	if cells.KillEvery > 0 && cells.PIDFile != "" {
		if len(specs) != 1 {
			return usagef("--kill-pid-file crashes one server: name one competitor, not %d", len(specs))
		}
		if _, err := os.Stat(cells.PIDFile); err != nil {
			return usagef("--kill-pid-file: %v", err)
		}
		if !cmd.Flags().Changed("seed") {
			cells.Seed = uint64(time.Now().UnixNano())
		}
	} else if cells.KillEvery > 0 {
		for _, sp := range specs {
			if fac, _ := competitors.Lookup(sp.Name); fac.DirState && (cells.Commits > 0 || cells.NoMarkers) {
				return usagef("--kill-every on %s kills its writers: each cell runs for --duration, with markers (not --commits or --no-markers)", sp.Name)
			}
			if !killable(sp.Name) || len(sp.Args) > 0 {
				return usagef("--kill-every crashes a server katbench starts itself, %s (no URL), or the one --kill-pid-file and --restart name; not %s", killableNames(), strings.Join(append([]string{sp.Name}, sp.Args...), " "))
			}
		}
		if serveChild() == nil {
			return errors.New("--kill-every needs the katbench executable to serve from (this process is not one)")
		}
		if !cmd.Flags().Changed("seed") {
			cells.Seed = uint64(time.Now().UnixNano())
		}
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	// Every line goes out as JSONL; the exit rule is the anomalies (a line
	// counts the attempts that were neither acknowledged nor refused).
	b, err := lifecycle.New(lifecycle.Settings{Command: commandLine(), Format: "jsonl", Out: f.out, History: f.history, Label: f.label,
		Tables: lifecycle.NoTables, Verdict: func([]results.Record) error { return nil }}, stdout, stderr)
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	if err := b.Open(cmd.Context()); err != nil {
		return asUsage(err)
	}
	dir, err := b.WorkDir(f.dir)
	if err != nil {
		return err
	}
	base := competitors.Config{Log: stderr, ServeChild: serveChild()}
	targets, err := scenarios.NewTargets(specs, facs, dir, base, workspace.Storage{}, os.Getenv)
	if err != nil {
		return err
	}
	anomalies := 0
	for i, tg := range targets {
		if cells.KillEvery > 0 && cells.PIDFile == "" {
			cells.ServeArgv = append(serveChild(), "serve", tg.Factory.Serve)
			cells.WritersArgv = append(serveChild(), "verify-writers")
		}
		n, terr := cells.Run(b.Ctx, b.Run, specs[i].Name, tg.Factory, tg.Config, stdout, stderr, b.Sink)
		anomalies += n
		if terr != nil {
			return terr
		}
	}
	if anomalies > 0 {
		return fmt.Errorf("%w: %d (see above)", errAnomalies, anomalies)
	}
	return nil
}
