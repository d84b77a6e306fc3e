// Package lifecycle is the one lifecycle of katbench's measuring commands
// (run and the competitor commands, capacity, data, transport, verify):
// the run every line carries (its id, host, commit and command line),
// progress on stderr, the result lines (JSONL or a table on stdout, a
// copy appended to --history, --label on each), Ctrl-C and SIGTERM, the
// work directory, and the exit rule: a line with failed operations makes
// the command fail (exit 1) unless --allow-errors said otherwise.
//
// A command calls New (checks --format; creates nothing), makes its own
// checks, Open (the history file, the signals) once it is about to
// measure, and Finish on every return after New. What it takes from the
// process — the command line, stdout and stderr, the environment — comes
// in a [Process] from cmd; its output flags are an [Output].
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
)

// Settings shape one command's lifecycle. A value: safe to copy.
type Settings struct {
	Output               // --format, --history, --label
	Command     []string // the command line every line records
	AllowErrors bool     // --allow-errors: failed operations do not fail the command
	// Out, when set, is a file the JSONL lines are appended to instead
	// of stdout (verify's --out).
	Out string
	// Tables, when set, are the command's own tables of its lines: on
	// stdout with --format table (and no JSONL there), else on stderr.
	// When nil, the generic table is printed (output.Results).
	Tables func(w io.Writer, recs []results.Record) error
	// Verdict is the exit rule over the lines: nil is results.CheckErrors.
	Verdict func(recs []results.Record) error
}

// NoTables are Tables that print nothing: for a command that prints its
// own summaries as it goes.
func NoTables(io.Writer, []results.Record) error { return nil }

// Bench is one command's lifecycle. Not safe for concurrent use, but its
// Sink, Log and Progress are safe for the measuring goroutines.
type Bench struct {
	// Run is stamped on every line.
	Run *results.Run
	// Progress reports the measurements done on stderr; it is also the
	// writer of a run's log lines, which it keeps apart from its bars.
	Progress *output.Progress
	// Log takes warnings: the first write of each is shown (output.FirstWrite).
	Log io.Writer
	// Ctx is cancelled by Ctrl-C or SIGTERM; set by Open.
	Ctx context.Context
	// Cleanup is cancelled by a second Ctrl-C or SIGTERM: the cleanup
	// that runs after an interrupt (dropping what a run created on a
	// server) stops there, and says what it leaves; set by Open.
	Cleanup context.Context
	// Sink takes the result lines; set by Open.
	Sink results.Sink

	s              Settings
	stdout, stderr io.Writer
	format         string
	stop           context.CancelFunc
	out            *output.Results
	outFile        *os.File
	tables         io.Writer
	lines          results.Collector
	tempDir        string
}

// New checks s.Format and starts the run and its progress; it creates
// nothing on disk.
func New(s Settings, stdout, stderr io.Writer) (*Bench, error) {
	if err := output.CheckFormat(s.Format); err != nil {
		return nil, err
	}
	b := &Bench{s: s, stdout: stdout, stderr: stderr, format: output.ResolveFormat(s.Format, stdout), Run: results.NewRun()}
	b.Run.Command, b.Run.AllowErrors = s.Command, s.AllowErrors
	b.Progress = output.NewProgress(stderr, output.UseBars(stderr, stdout, b.format))
	b.Log = &output.FirstWrite{W: b.Progress}
	return b, nil
}

// Update reports done of total for the task what (a bench.Progress).
func (b *Bench) Update(what string, done, total int) { b.Progress.Update(what, done, total) }

// WorkDir is the directory the command keeps its catalogs in: dir
// (created, checked writable) or, for "", a temp dir Finish removes.
func (b *Bench) WorkDir(dir string) (string, error) {
	d, remove, err := workspace.WorkDir(dir)
	if remove {
		b.tempDir = d
	}
	return d, err
}

// Open opens the line outputs (the --out and --history files) and
// catches Ctrl-C and SIGTERM in Ctx, a child of ctx.
func (b *Bench) Open(ctx context.Context) error {
	jsonOut, format, stderr := b.stdout, b.format, b.stderr
	b.tables = b.stderr
	if b.s.Tables != nil {
		// The command prints its own tables: output prints none.
		format, stderr = "jsonl", plainWriter{b.stderr}
		if b.format == "table" {
			jsonOut, b.tables = io.Discard, b.stdout
		}
	}
	if b.s.Out != "" {
		f, err := os.OpenFile(b.s.Out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		b.outFile, jsonOut = f, f
	}
	out, err := output.NewResults(format, b.s.History, jsonOut, stderr)
	if err != nil {
		return err
	}
	b.out = out
	b.Sink = results.Tee{out.Sink(b.s.Label), &b.lines}
	b.Ctx, b.Cleanup, b.stop = interruptTwice(ctx, b.Progress)
	return nil
}

// interruptTwice is Interruptible with a second stage: the first Ctrl-C or
// SIGTERM cancels measure (and says that the cleanup goes on), the second
// cancels cleanup as well. stop releases the signals.
func interruptTwice(ctx context.Context, log io.Writer) (measure, cleanup context.Context, stop context.CancelFunc) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	measure, cancelMeasure := context.WithCancel(ctx)
	cleanup, cancelCleanup := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancelMeasure()
			fmt.Fprintln(log, "katbench: interrupted: stopping, then removing what the run created; interrupt again to stop at once and leave it")
		case <-done:
			return
		}
		select {
		case <-ch:
			cancelCleanup()
		case <-done:
		}
	}()
	var once sync.Once
	return measure, cleanup, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancelMeasure()
			cancelCleanup()
		})
	}
}

// Interruptible is ctx cancelled also by Ctrl-C or SIGTERM, for a command
// that stops by its context; stop releases the signals.
func Interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// RemoveWorkDir removes the temp work dir now (reporting progress), if
// there is one; Finish does otherwise.
func (b *Bench) RemoveWorkDir() error {
	if b.tempDir == "" {
		return nil
	}
	d := b.tempDir
	b.tempDir = ""
	return workspace.RemoveTree(d, b.Progress.Update)
}

// Finish ends the command that returned err: the signals, the temp work
// dir, the progress (its last bar is drawn before any table), the line
// outputs and the tables; then the exit rule over the lines. It returns
// every error joined, err first.
func (b *Bench) Finish(err error) error {
	if b.stop != nil {
		b.stop()
	}
	if rerr := b.RemoveWorkDir(); rerr != nil {
		err = errors.Join(err, rerr)
	}
	b.Progress.Close()
	if b.out == nil {
		return err // never opened: no line was written
	}
	recs := b.lines.Snapshot()
	err = errors.Join(err, b.out.Close())
	if b.outFile != nil {
		err = errors.Join(err, b.outFile.Close())
	}
	verdict := b.s.Verdict
	if verdict == nil {
		verdict = results.CheckErrors
	}
	err = errors.Join(err, verdict(recs))
	if b.s.Tables != nil {
		err = errors.Join(err, b.s.Tables(b.tables, recs))
	}
	return err
}

// plainWriter hides that a writer is a terminal.
type plainWriter struct{ io.Writer }
