package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
)

func line(errs int64) results.Record {
	return results.Record{Target: "t", Scenario: "s", Ops: 10, Errors: errs}
}

// TestBadFormatCreatesNothing: a bad --format is the user's input, found
// before any file exists.
func TestBadFormatCreatesNothing(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	_, err := New(Settings{Output: Output{Format: "xml", History: hist}}, io.Discard, io.Discard)
	if !errors.Is(err, output.ErrFormat) {
		t.Fatalf("New: %v, want ErrFormat", err)
	}
	if _, serr := os.Stat(hist); !os.IsNotExist(serr) {
		t.Fatalf("history %s exists after a refused format: %v", hist, serr)
	}
}

// TestLinesGoOutAndFailedOpsFail: lines go to stdout as JSONL and to the
// history with the label; a line with failed operations fails Finish
// unless errors are allowed; the temp work dir is gone after Finish.
func TestLinesGoOutAndFailedOpsFail(t *testing.T) {
	for _, allow := range []bool{false, true} {
		hist := filepath.Join(t.TempDir(), "h.jsonl")
		var stdout, stderr bytes.Buffer
		b, err := New(Settings{Output: Output{Format: "jsonl", History: hist, Label: "lbl"}, AllowErrors: allow}, &stdout, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := b.WorkDir("")
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		rec := line(2)
		rec.AllowErrors = b.Run.AllowErrors
		if err := b.Sink.Write(rec); err != nil {
			t.Fatal(err)
		}
		err = b.Finish(nil)
		if allow != (err == nil) || (!allow && !errors.Is(err, results.ErrFailedOps)) {
			t.Fatalf("allow %v: Finish = %v", allow, err)
		}
		if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
			t.Fatalf("temp work dir %s left behind: %v", dir, serr)
		}
		h, _ := os.ReadFile(hist)
		if !strings.Contains(stdout.String(), `"scenario":"s"`) || !strings.Contains(string(h), `"label":"lbl"`) {
			t.Fatalf("stdout %q, history %q: want the line in both, labelled", stdout.String(), h)
		}
	}
}

// TestOwnTablesAndVerdict: a command's own tables get the lines (on
// stdout with --format table, where no JSONL goes), and its verdict
// replaces the failed-operations rule.
func TestOwnTablesAndVerdict(t *testing.T) {
	var stdout bytes.Buffer
	var got int
	tables := func(w io.Writer, recs []results.Record) error {
		got = len(recs)
		_, err := io.WriteString(w, "TABLE\n")
		return err
	}
	b, err := New(Settings{Output: Output{Format: "table"}, Tables: tables, Verdict: func([]results.Record) error { return nil }}, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.Sink.Write(line(1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(nil); err != nil {
		t.Fatalf("Finish: %v, want the verdict's nil", err)
	}
	if got != 1 || stdout.String() != "TABLE\n" {
		t.Fatalf("tables got %d lines; stdout %q", got, stdout.String())
	}
}

// TestFinishBeforeOpen: a command that fails its checks after New ends
// with its own error, no table and no file.
func TestFinishBeforeOpen(t *testing.T) {
	var stdout bytes.Buffer
	b, err := New(Settings{Output: Output{Format: "table"}, Tables: func(w io.Writer, _ []results.Record) error { _, err := io.WriteString(w, "T"); return err }}, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := errors.New("bad flag")
	if err := b.Finish(want); err != want {
		t.Fatalf("Finish = %v, want %v", err, want)
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout %q: want nothing", stdout.String())
	}
}

// TestOutAppends: --out gets the JSONL, appended to what it held.
func TestOutAppends(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(out, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	b, err := New(Settings{Output: Output{Format: "jsonl"}, Out: out, Tables: NoTables}, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.Sink.Write(line(0)); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(got), "{}\n{") || stdout.Len() != 0 {
		t.Fatalf("--out %q, stdout %q: want the line appended to the file only", got, stdout.String())
	}
}
