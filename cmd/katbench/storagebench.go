package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/lifecycle"
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

// lifecycle is the bench's lifecycle with these flags and tables.
func (b *loopFlags) lifecycle(cmd *cobra.Command, allowErrs bool, tables func(io.Writer, []results.Record) error) (*lifecycle.Bench, error) {
	return lifecycle.New(lifecycle.Settings{Command: commandLine(), AllowErrors: allowErrs, Format: b.format, History: b.history, Label: b.label, Tables: tables},
		cmd.OutOrStdout(), cmd.ErrOrStderr())
}
