package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/workspace"
)

// TestWriteThroughputLinesCarryBatches: the write-throughput lines of a
// catalog with group commit and of its floor say the mean batch their
// group commit formed, so the two can be compared batch for batch, and
// the file system their directory is on; the run says on stderr when
// that is an ext4 without a journal, whose creates depend on what was
// deleted in the minutes before.
func TestWriteThroughputLinesCarryBatches(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "run", "embedded-log", "fs-floor", "--quick", "--tables", "10",
		"--dir", filepath.Join(dir, "work"), "--scenario", "create_table.throughput.t8,commit_table.throughput.t8",
		"--format", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantFS, noJournal := workspace.FileSystem(filepath.Join(dir, "work"))
	if wantFS == "" {
		t.Fatal("the work dir's file system cannot be described")
	}
	if hasNote := strings.Contains(stderr, "is on ext4 without a journal"); hasNote != noJournal {
		t.Errorf("file system %q: note on stderr %v, want %v:\n%s", wantFS, hasNote, noJournal, stderr)
	}
	seen := map[string]bool{}
	for _, l := range parseLines(t, stdout) {
		if got := l.Params["dir_fs"]; got != wantFS {
			t.Errorf("%s %s: dir_fs %v, want %q", l.Target, l.Scenario, got, wantFS)
		}
		if l.Skipped != "" {
			t.Fatalf("%s %s skipped: %s", l.Target, l.Scenario, l.Skipped)
		}
		m, ok := l.Params["commit_batch_mean"].(float64)
		if !ok || m < 1 || m > 8 {
			t.Errorf("%s %s: commit_batch_mean %v; want the mean batch, 1 to 8 writes at t8", l.Target, l.Scenario, l.Params["commit_batch_mean"])
		}
		seen[l.Target+" "+l.Scenario] = true
	}
	for _, want := range []string{"embedded-log create_table.throughput.t8", "fs-floor create_table.throughput.t8",
		"embedded-log commit_table.throughput.t8", "fs-floor commit_table.throughput.t8"} {
		if !seen[want] {
			t.Errorf("no line for %s:\n%s", want, stdout)
		}
	}
}
