package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/results"
)

// output routes result lines: JSONL (or a table at the end) to stdout, a
// copy appended to the history file, and a human table on stderr when
// stderr is a terminal.
type output struct {
	format string
	stdout io.Writer
	stderr io.Writer
	coll   results.Collector
	hist   *results.History
	sink   results.Tee
}

// newOutput validates format ("jsonl" or "table") and opens the history file
// (none when history is "").
func newOutput(format, history string, stdout, stderr io.Writer) (*output, error) {
	if format != "jsonl" && format != "table" {
		return nil, usagef("--format %q: want jsonl or table", format)
	}
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
func (o *output) Sink() results.Sink { return o.sink }

// Close prints the tables and closes the history file.
func (o *output) Close() error {
	var err error
	recs := o.coll.Snapshot()
	if o.format == "table" {
		err = results.WriteTable(o.stdout, recs)
	} else if isTerminal(o.stderr) && len(recs) > 0 {
		fmt.Fprintln(o.stderr)
		err = results.WriteTable(o.stderr, recs)
	}
	if o.hist != nil {
		err = errors.Join(err, o.hist.Close())
	}
	return err
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

// progressLine redraws one status line on a terminal; elsewhere it prints
// nothing, so logs stay clean.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	dirty bool
}

func newProgress(w io.Writer) *progressLine { return &progressLine{w: w, on: isTerminal(w)} }

func (p *progressLine) update(what string, done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d", what, done, total)
	p.dirty = true
	if done == total {
		fmt.Fprintln(p.w)
		p.dirty = false
	}
}

// Write lets log lines go through the progress line without mangling it.
func (p *progressLine) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dirty {
		fmt.Fprint(p.w, "\r\033[K")
		p.dirty = false
	}
	return p.w.Write(b)
}
