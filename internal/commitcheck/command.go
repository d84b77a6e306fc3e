package commitcheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios"
)

// ErrAnomalies is Command.Run's error when a checked history had an
// anomaly (exit 1; the lines are written first).
var ErrAnomalies = errors.New("commit anomalies found")

// Command is `katbench verify` as its flags give it: the cells' Settings
// and where the lines go. Register its flags with RegisterFlags, then Run
// it once. Not safe for concurrent use.
type Command struct {
	Settings
	Out, Dir, History, Label string
}

// RegisterFlags adds the command's flags to fl, each filling its field.
func (c *Command) RegisterFlags(fl *pflag.FlagSet) {
	c.Settings.RegisterFlags(fl)
	fl.StringVar(&c.Out, "out", "", "append the result lines to this file (default: stdout, after each cell's summary)")
	results.RegisterHistoryFlag(fl, &c.History, "", "also append this run's lines to it (none by default; docs/verify.md's tables are generated from runs recorded with --history "+results.DefaultHistory+" --label NAME)")
	results.RegisterLabelFlag(fl, &c.Label)
	fl.StringVar(&c.Dir, "dir", "", "keep catalogs and warehouses under this directory (default: a temp dir removed after the run)")
}

func settingsf(format string, args ...any) error { return usage.Errorf(ErrSettings, format, args...) }

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

// checkKills checks the crash settings of cells against the targets
// (changed reports whether the user gave a flag) and seeds the kill
// moments from the clock unless --seed was given.
func checkKills(cells *Cells, specs []scenarios.TargetSpec, changed func(string) bool, serveChild []string) error {
	if cells.KillEvery < 0 {
		return settingsf("--kill-every %s: want a positive duration like 2s", cells.KillEvery)
	}
	if (cells.PIDFile == "") != (cells.Restart == "") || (cells.PIDFile != "" && cells.KillEvery == 0) {
		return settingsf("--kill-pid-file and --restart go together, with --kill-every")
	}
	if cells.KillEvery == 0 {
		return nil
	}
	if cells.PIDFile != "" {
		if len(specs) != 1 {
			return settingsf("--kill-pid-file crashes one server: name one competitor, not %d", len(specs))
		}
		if _, err := os.Stat(cells.PIDFile); err != nil {
			return settingsf("--kill-pid-file: %v", err)
		}
	} else {
		for _, sp := range specs {
			if fac, _ := competitors.Lookup(sp.Name); fac.DirState && (cells.Commits > 0 || cells.NoMarkers) {
				return settingsf("--kill-every on %s kills its writers: each cell runs for --duration, with markers (not --commits or --no-markers)", sp.Name)
			}
			if !killable(sp.Name) || len(sp.Args) > 0 {
				return settingsf("--kill-every crashes a server katbench starts itself, %s (no URL), or the one --kill-pid-file and --restart name; not %s", killableNames(), strings.Join(append([]string{sp.Name}, sp.Args...), " "))
			}
		}
		if serveChild == nil {
			return errors.New("--kill-every needs the katbench executable to serve from (this process is not one)")
		}
	}
	if !changed("seed") {
		cells.Seed = uint64(time.Now().UnixNano())
	}
	return nil
}

// Run checks every competitor args name for lost, duplicated, phantom
// and forked commits, cell by cell (Cells.Run), in the process p;
// changed reports whether the user gave a flag. Every line goes out as
// JSONL (to --out or stdout) after its cell's summary; the error wraps
// ErrAnomalies when any cell had one.
func (c *Command) Run(ctx context.Context, p lifecycle.Process, args []string, changed func(string) bool) (err error) {
	cells, err := c.Check(changed)
	if err != nil {
		return err
	}
	given := make([]scenarios.TargetSpec, len(args))
	for i, a := range args {
		given[i] = scenarios.ParseTargetSpec(a)
	}
	specs, facs, err := scenarios.LookupTargets(given, scenarios.Options{})
	if err != nil {
		return err
	}
	if err := checkKills(&cells, specs, changed, p.ServeChild); err != nil {
		return err
	}
	// The exit rule is the anomalies (a line counts the attempts that
	// were neither acknowledged nor refused), not failed operations.
	b, err := p.Bench(lifecycle.Settings{Output: lifecycle.Output{Format: "jsonl", History: c.History, Label: c.Label}, Out: c.Out,
		Tables: lifecycle.NoTables, Verdict: func([]results.Record) error { return nil }})
	if err != nil {
		return err
	}
	defer func() { err = b.Finish(err) }()
	if err := b.Open(ctx); err != nil {
		return usage.Wrap(ErrSettings, err)
	}
	dir, err := b.WorkDir(c.Dir)
	if err != nil {
		return err
	}
	base := competitors.Config{Log: p.Stderr, ServeChild: p.ServeChild}
	targets, err := scenarios.NewTargets(specs, facs, dir, base, workspace.Storage{}, p.Getenv)
	if err != nil {
		return err
	}
	anomalies := 0
	for i, tg := range targets {
		if cells.KillEvery > 0 && cells.PIDFile == "" {
			cells.ServeArgv = append(append([]string{}, p.ServeChild...), "serve", tg.Factory.Serve)
			cells.WritersArgv = append(append([]string{}, p.ServeChild...), "verify-writers")
		}
		n, terr := cells.Run(b.Ctx, b.Run, specs[i].Name, tg.Factory, tg.Config, p.Stdout, p.Stderr, b.Sink)
		anomalies += n
		if terr != nil {
			return terr
		}
	}
	if anomalies > 0 {
		return fmt.Errorf("%w: %d (see above)", ErrAnomalies, anomalies)
	}
	return nil
}
