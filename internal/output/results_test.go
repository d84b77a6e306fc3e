package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
)

// TestFormat: the three names pass, anything else is ErrFormat naming the
// value; auto is a table on a terminal and JSONL on anything else.
func TestFormat(t *testing.T) {
	for _, f := range []string{"auto", "jsonl", "table"} {
		if err := CheckFormat(f); err != nil {
			t.Errorf("CheckFormat(%q) = %v", f, err)
		}
	}
	if err := CheckFormat("xml"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `--format "xml"`) {
		t.Errorf("CheckFormat(xml) = %v, want ErrFormat naming the value", err)
	}
	if _, err := NewResults("xml", "", &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, ErrFormat) {
		t.Errorf("NewResults(xml) = %v, want ErrFormat", err)
	}
	_, tty := testenv.OpenPTY(t)
	if got := ResolveFormat("auto", tty); got != "table" {
		t.Errorf("auto on a terminal = %q, want table", got)
	}
	if got := ResolveFormat("auto", &bytes.Buffer{}); got != "jsonl" {
		t.Errorf("auto on a buffer = %q, want jsonl", got)
	}
	if got := ResolveFormat("table", &bytes.Buffer{}); got != "table" {
		t.Errorf("table on a buffer = %q, want table", got)
	}
	if TerminalWidth(tty) != 160 || TerminalWidth(&bytes.Buffer{}) != 0 {
		t.Errorf("TerminalWidth: %d on the pty, %d on a buffer; want 160 and 0", TerminalWidth(tty), TerminalWidth(&bytes.Buffer{}))
	}
}

// TestResultsRoutesLines: jsonl writes each line to stdout and the history
// with the label on it; table writes no JSON, only the table at Close.
func TestResultsRoutesLines(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	rec := results.Record{Target: "embedded", Scenario: "load_table.latency", RunID: "r1"}
	var stdout, stderr bytes.Buffer
	o, err := NewResults("jsonl", hist, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Sink("nightly").Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	var got results.Record
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.Label != "nightly" || got.Scenario != rec.Scenario {
		t.Fatalf("stdout %q (%v): want the line with its label", stdout.String(), err)
	}
	h, err := os.ReadFile(hist)
	if err != nil || string(h) != stdout.String() {
		t.Fatalf("history %q (%v), want what stdout got", h, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr (no terminal) got %q, want nothing", stderr.String())
	}

	stdout.Reset()
	o, err = NewResults("table", "", &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Sink("").Write(rec); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 {
		t.Fatalf("table format wrote %q before Close, want nothing", stdout.String())
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); json.Valid([]byte(strings.TrimSpace(out))) || !strings.Contains(out, "load_table.latency") {
		t.Fatalf("table format wrote %q, want a table naming the scenario", out)
	}
}
