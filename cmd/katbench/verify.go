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
	writers, tables string
	duration        time.Duration
	commits         int
	retries         int
	noMarkers       bool
	out, dir        string
	history, label  string
	show            int
	killEvery       time.Duration
	seed            uint64
	pidFile         string
	restart         string
	keep            bool
}

// killable are the competitors --kill-every can crash: ours, served by a
// child `katbench serve` on a fixed address and state directory.
var killable = map[string][]string{"rest": {"serve", "rest"}}

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
  katbench verify rest --writers 16 --duration 60s --kill-every 2s   # kill -9 our server meanwhile`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, &f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.writers, "writers", "1,16,64", "writer counts, comma-separated: one cell each")
	fl.StringVar(&f.tables, "tables", "1", "table counts, comma-separated: one cell each (1 is one hot table)")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "how long each cell commits (commits in flight then finish)")
	fl.IntVar(&f.commits, "commits", 0, "commits to attempt per cell, instead of --duration")
	fl.IntVar(&f.retries, "commit-retries", commitcheck.DefaultRetries, "commit.retry.num-retries on the tables: how often iceberg-go refreshes and re-applies a commit that lost a race (default as Iceberg's Java client; iceberg-go's own default is 0)")
	fl.BoolVar(&f.noMarkers, "no-markers", false, "commit without markers and check nothing: the checker's own cost, beside a run with markers")
	fl.StringVar(&f.out, "out", "", "append the result lines to this file (default: stdout, after each cell's summary)")
	fl.StringVar(&f.history, "history", "", "also append the result lines to this file (none by default; docs/verify.md's tables are generated from runs recorded with --history bench_history.jsonl --label NAME)")
	results.RegisterLabelFlag(fl, &f.label)
	fl.StringVar(&f.dir, "dir", "", "keep catalogs and warehouses under this directory (default: a temp dir removed after the run)")
	fl.DurationVar(&f.killEvery, "kill-every", 0, "kill -9 the server at random moments about this far apart during each cell (uniform in [D/2, 3D/2), seeded by --seed) and restart it: rest (katbench runs its serve rest as a child), or the server --kill-pid-file and --restart name")
	fl.StringVar(&f.pidFile, "kill-pid-file", "", "with --kill-every: crash instead the server whose process id this file holds (its process group), e.g. $KATBENCH_STATE_DIR/nessie-pg/pid")
	fl.StringVar(&f.restart, "restart", "", "with --kill-pid-file: the shell command that starts that server again on the same state and port, e.g. 'containers/nessie_up.sh --store jdbc'")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the kill moments (default: from the clock; every line says its kill_seed)")
	fl.BoolVar(&f.keep, "keep", false, "leave each cell's tables on the server (namespace katbench_verify) to inspect an anomaly; default: dropped after the cell on a server that outlives the run")
	fl.IntVar(&f.show, "show", 20, "anomalies printed with their evidence per cell (the counts are always whole)")
	rootCmd.AddCommand(cmd)
}

func runVerify(cmd *cobra.Command, f *verifyFlags, args []string) (err error) {
	writers, err := commitcheck.ParseCounts("writers", f.writers)
	if err != nil {
		return err
	}
	tables, err := commitcheck.ParseCounts("tables", f.tables)
	if err != nil {
		return err
	}
	if f.commits < 0 || f.retries < 0 || f.retries > 100 || f.duration <= 0 || f.show < 0 {
		return usagef("--commits, --commit-retries (0…100), --duration and --show must be positive")
	}
	if cmd.Flags().Changed("commits") && cmd.Flags().Changed("duration") {
		return usagef("--commits and --duration both say when a cell ends: give one")
	}
	specs, facs, err := scenarios.LookupTargets(parseTargets(args), scenarios.Options{})
	if err != nil {
		return err
	}
	if f.killEvery < 0 {
		return usagef("--kill-every %s: want a positive duration like 2s", f.killEvery)
	}
	if (f.pidFile == "") != (f.restart == "") || (f.pidFile != "" && f.killEvery == 0) {
		return usagef("--kill-pid-file and --restart go together, with --kill-every")
	}
	if f.killEvery > 0 && f.pidFile != "" {
		if len(specs) != 1 {
			return usagef("--kill-pid-file crashes one server: name one competitor, not %d", len(specs))
		}
		if _, err := os.Stat(f.pidFile); err != nil {
			return usagef("--kill-pid-file: %v", err)
		}
		if !cmd.Flags().Changed("seed") {
			f.seed = uint64(time.Now().UnixNano())
		}
	} else if f.killEvery > 0 {
		for _, sp := range specs {
			if _, ok := killable[sp.Name]; !ok || len(sp.Args) > 0 {
				return usagef("--kill-every crashes a server katbench starts itself, rest (no URL), or the one --kill-pid-file and --restart name; not %s", strings.Join(append([]string{sp.Name}, sp.Args...), " "))
			}
		}
		if serveChild() == nil {
			return errors.New("--kill-every needs the katbench executable to serve from (this process is not one)")
		}
		if !cmd.Flags().Changed("seed") {
			f.seed = uint64(time.Now().UnixNano())
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
		cells := commitcheck.Cells{Writers: writers, Tables: tables, Commits: f.commits, Duration: f.duration, Retries: f.retries,
			NoMarkers: f.noMarkers, Keep: f.keep, Show: f.show, KillEvery: f.killEvery, Seed: f.seed, PIDFile: f.pidFile, Restart: f.restart}
		if f.killEvery > 0 && f.pidFile == "" {
			cells.ServeArgv = append(serveChild(), killable[specs[i].Name]...)
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
