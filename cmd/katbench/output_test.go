package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns a new pseudo-terminal pair, closed when the test ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("skipping: no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	// A fresh pty is 0x0; a real terminal has a size (bars need a width).
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 160}); err != nil {
		t.Fatalf("set pty size: %v", err)
	}
	return m, s
}

// runOnTerminal runs katbench with stdout on a terminal and stderr on a
// pipe, and returns what each received.
func runOnTerminal(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	master, slave := openPTY(t)
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

// TestProgressPlainLines: off a terminal, each task prints at most one line
// per tenth and always its end, with the time it took so far and what is
// left at its pace; status lines pass through.
func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clock time.Time
	p.now = func() time.Time { return clock }
	for i := 1; i <= 1000; i++ {
		clock = t0.Add(time.Duration(i) * 100 * time.Millisecond) // one update every 100ms
		p.update("rest: tables", i, 1000)
	}
	fmt.Fprintln(p, "rest: load_table.latency")
	p.update("rest: drop tables", 0, 0) // nothing to do: no line
	p.Close()
	p.update("late", 1, 1) // after Close: ignored
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(got) != 12 {
		t.Fatalf("%d lines, want 10 tenths + the end + the status line:\n%s", len(got), b.String())
	}
	if got[5] != "rest: tables: 500/1000 (50%, 50s elapsed, about 50s left)" {
		t.Errorf("halfway line %q, want the elapsed time and the time left at that pace", got[5])
	}
	if got[0] != "rest: tables: 1/1000 (0%)" || got[10] != "rest: tables: 1000/1000 (100%)" || got[11] != "rest: load_table.latency" {
		t.Fatalf("lines:\n%s", b.String())
	}
}

// TestProgressBarsOnTerminal draws real bars on a pseudo-terminal and checks
// they end complete and Close returns (an unfinished bar must not hang it).
func TestProgressBarsOnTerminal(t *testing.T) {
	master, slave := openPTY(t)
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master)
		read <- b
	}()
	if !useBars(slave, io.Discard, "table") {
		t.Fatal("useBars: a terminal stderr with the table format should get bars")
	}
	if useBars(slave, slave, "jsonl") {
		t.Fatal("useBars: JSONL streaming to the same terminal must not get bars")
	}
	p := newProgress(slave, true)
	for i := 0; i <= 50; i++ {
		p.update("grpc: tables", i, 50)
	}
	fmt.Fprintln(p, "grpc: status line")
	p.update("grpc: drop tables", 3, 50) // left unfinished
	p.Close()
	slave.Close()
	out := string(<-read)
	if !strings.Contains(out, "grpc: tables  ") || !strings.Contains(out, "grpc: tables: 50/50 (100%)") || !strings.Contains(out, "[=") {
		t.Fatalf("no complete bar drawn: %q", out)
	}
	if !strings.Contains(out, "grpc: status line") {
		t.Fatalf("status line lost: %q", out)
	}
}
