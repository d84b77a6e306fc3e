package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLinesRecordTheirCommand checks every line of a run names the command
// that produced it, quoted so it can be pasted into a shell.
func TestLinesRecordTheirCommand(t *testing.T) {
	dir := t.TempDir()
	args := []string{"embedded", "--peer", "", "--quick", "--tables", "4", "--ops", "20", "--create-ops", "5",
		"--warmup", "1ms", "--scenario", "control.*,table_exists.*", "--dir", filepath.Join(dir, "w"), "--history", ""}
	stdout, stderr, code := katbench(t, dir, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "katbench embedded --peer '' --quick --tables 4 --ops 20 --create-ops 5 --warmup 1ms --scenario 'control.*,table_exists.*' --dir " +
		filepath.Join(dir, "w") + " --history ''"
	lines := parseLines(t, stdout)
	if len(lines) == 0 {
		t.Fatal("no lines")
	}
	for _, l := range lines {
		if got := strings.Join(l.Command, " "); got != want {
			t.Fatalf("%s %s: command = %q, want %q", l.Target, l.Scenario, got, want)
		}
	}
}
