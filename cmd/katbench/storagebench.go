package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
)

// loopFlags are the flags `katbench data` and `katbench transport`
// share: one run with other defaults, so each means the same in both.
type loopFlags struct {
	rounds                           int
	scenario, history, label, format string
	quick                            bool
}

// roundsHelp is --rounds in every bench: what a round is, then what one
// round of this bench does.
const roundsHelp = "interleaved rounds: every cell is measured in this many rounds on every lane, the lanes' order reversed each round (A B, then B A); lines keep each round's values for the ratios' spread. "

func (b *loopFlags) register(fl *pflag.FlagSet, rounds int, round, example, quick string) {
	fl.IntVar(&b.rounds, "rounds", rounds, roundsHelp+round)
	fl.StringVar(&b.scenario, "scenario", "", "measure only the scenarios matching these globs, comma-separated, as for run ("+example+"; katbench list names them)")
	fl.BoolVar(&b.quick, "quick", os.Getenv("BENCH_QUICK") == "1", quick+"; env BENCH_QUICK=1")
	fl.StringVar(&b.history, "history", "", "also append result lines to this file (none by default, as for run; the README's runs are recorded with --history bench_history.jsonl)")
	fl.StringVar(&b.format, "format", "auto", output.FormatHelp)
	results.RegisterLabelFlag(fl, &b.label)
}

// storageRun is one run of a storage bench: its signals, progress, lines
// (JSONL to stdout or a table, history) and tables. Not safe for
// concurrent use.
type storageRun struct {
	ctx    context.Context
	stop   context.CancelFunc
	prog   *output.Progress
	out    *output.Results
	coll   results.Collector
	tables io.Writer
	// Sink takes the lines, Log the warnings (one per run), Progress
	// the measurements done.
	Sink results.Sink
	Log  io.Writer
}

func startStorage(cmd *cobra.Command, b *loopFlags) (*storageRun, error) {
	if err := output.CheckFormat(b.format); err != nil {
		return nil, err
	}
	stderr, stdout := cmd.ErrOrStderr(), cmd.OutOrStdout()
	format := output.ResolveFormat(b.format, stdout)
	r := &storageRun{prog: output.NewProgress(stderr, output.UseBars(stderr, stdout, format)), tables: stderr}
	jsonOut := stdout
	if format == "table" {
		jsonOut, r.tables = io.Discard, stdout
	}
	// The bench prints its own tables: plainWriter keeps output from
	// printing the generic one.
	out, err := output.NewResults("jsonl", b.history, jsonOut, plainWriter{stderr})
	if err != nil {
		r.prog.Close()
		return nil, err
	}
	r.out = out
	r.Sink = results.Tee{out.Sink(b.label), &r.coll}
	r.Log = &output.FirstWrite{W: r.prog}
	r.ctx, r.stop = signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	return r, nil
}

// Progress is where the bench reports its measurements done.
func (r *storageRun) Progress(what string, done, total int) { r.prog.Update(what, done, total) }

// finish ends the run: progress, history, the bench's tables; a line with
// failed operations (warm-up included) turns a run that returned nil red.
func (r *storageRun) finish(err error, tables func(w io.Writer, recs []results.Record) error) error {
	r.stop()
	r.prog.Close()
	recs := r.coll.Snapshot()
	err = errors.Join(err, r.out.Close())
	if err == nil {
		err = results.CheckErrors(recs)
	}
	return errors.Join(err, tables(r.tables, recs))
}

// plainWriter hides that a writer is a terminal.
type plainWriter struct{ io.Writer }
