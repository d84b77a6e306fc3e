package results

import "github.com/spf13/pflag"

// The flags every command that writes or reads result lines shares are
// defined here once: a command chooses only a default and the tail of the
// help text, so --history, --format and --label read alike everywhere.

// DefaultHistory is the history file the repository's own results are
// recorded in, where compare and readme look runs up by default.
const DefaultHistory = "bench_history.jsonl"

// RegisterHistoryFlag adds --history, filling p: the JSONL file of result
// lines a command appends its lines to (def "": none) or reads runs from
// (def DefaultHistory). use completes the help text: what this command
// does with the file.
func RegisterHistoryFlag(fl *pflag.FlagSet, p *string, def, use string) {
	fl.StringVar(p, "history", def, "history file of result lines (JSONL): "+use)
}

// RegisterFormatFlag adds --format, filling p with def unless given: what
// the command writes on stdout; formats names the values and what each
// means. The command checks the value.
func RegisterFormatFlag(fl *pflag.FlagSet, p *string, def, formats string) {
	fl.StringVar(p, "format", def, "stdout format: "+formats)
}

// labelFlag is the --label flag: checked when the flag is parsed
// (CheckLabel), so a bad label is a usage error before anything runs.
type labelFlag string

func (v *labelFlag) String() string { return string(*v) }
func (v *labelFlag) Type() string   { return "NAME" }
func (v *labelFlag) Set(s string) error {
	if err := CheckLabel(s); err != nil {
		return err
	}
	*v = labelFlag(s)
	return nil
}

// RegisterLabelFlag adds --label, filling p, to a command that writes
// result lines.
func RegisterLabelFlag(fl *pflag.FlagSet, p *string) {
	fl.Var((*labelFlag)(p), "label", "record this label on every line: a README table named NAME (katbench readme) shows the newest run labelled NAME")
}
