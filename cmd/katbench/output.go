package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/results"
)

// output routes result lines: JSONL (or a table at the end) to stdout, a
// copy appended to the history file, and a human table on stderr when
// stderr is a terminal and stdout got JSONL.
type output struct {
	format string
	stdout io.Writer
	stderr io.Writer
	coll   results.Collector
	hist   *results.History
	sink   results.Tee
	// label is recorded on every line (--label); "" for none.
	label string
}

// newOutput validates format ("auto", "jsonl" or "table"; see
// resolveFormat) and opens the history file (none when history is "").
func newOutput(format, history string, stdout, stderr io.Writer) (*output, error) {
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	format = resolveFormat(format, stdout)
	o := &output{format: format, stdout: stdout, stderr: stderr}
	o.sink = append(o.sink, &o.coll)
	if format == "jsonl" {
		o.sink = append(o.sink, results.NewJSONL(stdout))
	}
	if history != "" {
		h, err := results.OpenHistory(history)
		if err != nil {
			return nil, err
		}
		o.hist = h
		o.sink = append(o.sink, h)
	}
	return o, nil
}

// Sink is where the runner writes.
func (o *output) Sink() results.Sink { return results.Labelled(o.sink, o.label) }

// Close prints the tables and closes the history file.
func (o *output) Close() error {
	var err error
	recs := o.coll.Snapshot()
	if o.format == "table" {
		err = results.WriteTableWidth(o.stdout, recs, terminalWidth(o.stdout))
	} else if isTerminal(o.stderr) && len(recs) > 0 {
		fmt.Fprintln(o.stderr)
		err = results.WriteTableWidth(o.stderr, recs, terminalWidth(o.stderr))
	}
	if o.hist != nil {
		err = errors.Join(err, o.hist.Close())
	}
	return err
}

// formatHelp is the --format flag's help text.
const formatHelp = "stdout format: auto (a table on a terminal, JSONL otherwise), jsonl or table"

// validFormatName reports whether --format has a known value.
func validFormatName(format string) bool {
	return format == "auto" || format == "jsonl" || format == "table"
}

// checkFormat is the one check of a results command's --format: a usage
// error unless validFormatName.
func checkFormat(format string) error {
	if !validFormatName(format) {
		return usagef("--format %q: want auto, jsonl or table", format)
	}
	return nil
}

// resolveFormat turns "auto" into "table" when stdout is a terminal (a
// person reads it) and "jsonl" otherwise (a pipe or file: a program reads
// it). Other values are returned as they are.
func resolveFormat(format string, stdout io.Writer) string {
	if format != "auto" {
		return format
	}
	if isTerminal(stdout) {
		return "table"
	}
	return "jsonl"
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
