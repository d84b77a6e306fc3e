package lifecycle

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
)

// Output are a measuring command's output flags: where its lines go and
// what they carry besides the measurements. A value: safe to copy.
type Output struct {
	Format  string // --format: auto, jsonl or table
	History string // --history file the lines are appended to ("" for none)
	Label   string // --label on every line
}

// HistoryUse is --history's help tail of the commands whose runs the
// README's tables show.
const HistoryUse = "also append this run's lines to it (none by default; the README's runs are recorded with --history " + results.DefaultHistory + ")"

// RegisterFlags adds --history (its help ending in historyUse), --label
// and --format (auto, jsonl or table) to fl, each filling its field.
func (o *Output) RegisterFlags(fl *pflag.FlagSet, historyUse string) {
	results.RegisterHistoryFlag(fl, &o.History, "", historyUse)
	results.RegisterLabelFlag(fl, &o.Label)
	results.RegisterFormatFlag(fl, &o.Format, "auto", output.Formats)
}
