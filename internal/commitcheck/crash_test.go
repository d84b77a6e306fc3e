package commitcheck_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/commitcheck"
)

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestScriptServerKillsAndRestarts: Kill ends the recorded process for
// good before it returns; Restart runs the command that records a new one.
func TestScriptServerKillsAndRestarts(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := &commitcheck.ScriptServer{PIDFile: pidFile, Timeout: time.Minute,
		Command: fmt.Sprintf("sleep 600 >/dev/null 2>&1 & echo $! > %s", pidFile)}
	ctx := context.Background()
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Kill() })
	first := readPID(t, pidFile)
	if !running(first) {
		t.Fatalf("process %d not running after the start", first)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if running(first) {
		t.Fatalf("process %d still running after Kill returned", first)
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	second := readPID(t, pidFile)
	if second == first || !running(second) {
		t.Fatalf("restart: pid %d (was %d), running %t", second, first, running(second))
	}
	bad := &commitcheck.ScriptServer{PIDFile: pidFile, Command: "echo cannot start >&2; exit 3"}
	if err := bad.Restart(ctx); err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("a failing restart: %v, want its output in the error", err)
	}
}

// TestKillsRestartsAfterEveryKill: every kill is followed by a restart,
// and the count is of kills made.
func TestKillsRestartsAfterEveryKill(t *testing.T) {
	var events []string
	c := &recordingCrasher{events: &events}
	ctx, cancel := context.WithCancel(context.Background())
	c.after = 3
	c.stop = cancel
	n, err := commitcheck.Kills(ctx, c, time.Millisecond, 42)
	if err != nil || n != 3 {
		t.Fatalf("kills %d, err %v; want 3", n, err)
	}
	if strings.Join(events, ",") != "kill,restart,kill,restart,kill,restart" {
		t.Fatalf("events %v", events)
	}
}

type recordingCrasher struct {
	events *[]string
	after  int
	stop   func()
}

func (c *recordingCrasher) Kill() error { *c.events = append(*c.events, "kill"); return nil }
func (c *recordingCrasher) Restart(context.Context) error {
	*c.events = append(*c.events, "restart")
	if c.after--; c.after == 0 {
		c.stop()
	}
	return nil
}
