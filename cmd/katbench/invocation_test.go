package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"embedded":             "embedded",
		"--rows=2M":            "--rows=2M",
		"s3://bucket/wh":       "s3://bucket/wh",
		"load_table.*":         "'load_table.*'",
		"a b":                  "'a b'",
		"it's":                 `'it'\''s'`,
		"":                     "''",
		"create_table.t{1,8}":  "'create_table.t{1,8}'",
		"$HOME":                "'$HOME'",
		"127.0.0.1:9000,x@y+z": "127.0.0.1:9000,x@y+z",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

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
