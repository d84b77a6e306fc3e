package main

import (
	"io"

	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
)

// formatHelp is the --format flag's help text (output.FormatHelp).
const formatHelp = output.FormatHelp

// checkFormat is output.CheckFormat as a usage error.
func checkFormat(format string) error { return usage(output.CheckFormat(format)) }

// resolveFormat is output.ResolveFormat; terminalWidth output.TerminalWidth.
func resolveFormat(format string, stdout io.Writer) string {
	return output.ResolveFormat(format, stdout)
}
func terminalWidth(w io.Writer) int { return output.TerminalWidth(w) }

// reporter is a command's progress (output.Progress); update is the
// scenarios.Progress the runs report to.
type reporter struct{ *output.Progress }

func newProgress(w io.Writer, bars bool) reporter { return reporter{output.NewProgress(w, bars)} }
func useBars(stderr, stdout io.Writer, format string) bool {
	return output.UseBars(stderr, stdout, format)
}
func (r reporter) update(what string, done, total int) { r.Update(what, done, total) }

// resultsOut is where a command's result lines go (output.Results), with
// the --label recorded on each.
type resultsOut struct {
	*output.Results
	label string
}

// newOutput opens a command's output (output.NewResults); a bad format is
// a usage error.
func newOutput(format, history string, stdout, stderr io.Writer) (*resultsOut, error) {
	r, err := output.NewResults(format, history, stdout, stderr)
	if err != nil {
		return nil, usage(err)
	}
	return &resultsOut{Results: r}, nil
}

// Sink is where the runner writes.
func (o *resultsOut) Sink() results.Sink { return o.Results.Sink(o.label) }
