package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// runOnTerminal runs katbench with stdout on a terminal and stderr on a
// pipe, and returns what each received.
func runOnTerminal(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	master, slave := testenv.OpenPTY(t)
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "BENCH_QUICK=", "BENCH_DURABILITY=")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = slave, &errb
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the slave is closed
		read <- b
	}()
	err := cmd.Run()
	slave.Close()
	out := <-read
	if err != nil {
		t.Fatalf("katbench %q: %v\n%s", args, err, errb.String())
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n"), errb.String()
}

var tinyRun = []string{"embedded", "--quick", "--tables", "8", "--ops", "50", "--create-ops", "10",
	"--duration", "30ms", "--warmup", "5ms", "--threads", "1", "--history", ""}

// TestTerminalGetsTheTable: on a terminal stdout holds the table and no
// JSON; with --format jsonl the lines; progress never lands on stdout.
func TestTerminalGetsTheTable(t *testing.T) {
	out, errOut := runOnTerminal(t, tinyRun...)
	if strings.Contains(out, `"run_id"`) || !strings.Contains(out, "scenario") || !strings.Contains(out, "load_table.latency") {
		t.Fatalf("stdout on a terminal: want the table and no JSON, got:\n%s", out)
	}
	if strings.Contains(out, "tables:") || strings.Contains(out, "starting") {
		t.Errorf("progress or status lines on stdout:\n%s", out)
	}
	// stderr is a pipe: plain progress lines, no terminal control codes.
	if !strings.Contains(errOut, "embedded: tables: 8/8 (100%)") {
		t.Errorf("stderr lacks the plain progress line for the dataset:\n%s", errOut)
	}
	if strings.Contains(errOut, "\x1b[") || strings.Contains(errOut, "\r") {
		t.Errorf("terminal control codes on a piped stderr: %q", errOut)
	}

	out, _ = runOnTerminal(t, append(tinyRun, "--format", "jsonl")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 {
		t.Fatalf("--format jsonl on a terminal: %d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) || !strings.Contains(l, `"run_id"`) {
			t.Fatalf("--format jsonl on a terminal: line %q is not a result", l)
		}
	}
}

// TestPipedStdoutGetsJSONL: the default on a pipe is JSONL, as before.
func TestPipedStdoutGetsJSONL(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, append(tinyRun, "--dir", filepath.Join(dir, "w"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first, _, _ := strings.Cut(stdout, "\n")
	if !json.Valid([]byte(first)) || !strings.Contains(first, `"run_id"`) || strings.Contains(stdout, "scenario  ") {
		t.Fatalf("piped stdout: want JSONL only, got:\n%.400s", stdout)
	}
}
