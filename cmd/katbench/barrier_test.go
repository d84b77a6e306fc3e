package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/scenarios"
)

// TestStartFileBarrier: workers with --start-file report ready after their
// setup and measure nothing until `katbench cluster release` writes the
// start instant; then both start from that one instant.
func TestStartFileBarrier(t *testing.T) {
	const n = 2
	dir := t.TempDir()
	url := serveREST(t)
	startFile := filepath.Join(dir, "start")
	type worker struct {
		cmd    *exec.Cmd
		stdout bytes.Buffer
		ready  chan struct{}
	}
	ws := make([]*worker, n)
	for i := range ws {
		w := &worker{ready: make(chan struct{})}
		w.cmd = exec.Command(bin, "rest", url, "--quick", "--tables", "40", "--shard", fmt.Sprintf("%d/%d", i, n),
			"--start-file", startFile, "--scenario", "load_table.throughput.t1", "--duration", "300ms", "--warmup", "50ms",
			"--server-warmup", "0", "--server-cost=false", "--format", "jsonl", "--dir", filepath.Join(dir, fmt.Sprint(i)))
		w.cmd.Env = append(os.Environ(), "BENCH_QUICK=", "BENCH_DURABILITY=")
		w.cmd.Stdout = &w.stdout
		stderr, err := w.cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.cmd.Process.Kill() })
		go func() {
			sc := bufio.NewScanner(stderr)
			seen := false
			for sc.Scan() {
				if !seen && strings.HasPrefix(sc.Text(), scenarios.ReadyMark) {
					seen = true
					close(w.ready)
				}
			}
		}()
		ws[i] = w
	}
	for i, w := range ws {
		select {
		case <-w.ready:
		case <-time.After(3 * time.Minute):
			t.Fatalf("worker %d logged no %s line", i, scenarios.ReadyMark)
		}
	}
	at := time.Now().Add(time.Second).UTC()
	if _, errOut, code := katbench(t, dir, "cluster", "release", "--file", startFile, "--at", at.Format(time.RFC3339Nano)); code != 0 {
		t.Fatalf("cluster release: exit %d: %s", code, errOut)
	}
	for i, w := range ws {
		if err := w.cmd.Wait(); err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		f := filepath.Join(dir, fmt.Sprintf("w%d.jsonl", i))
		os.WriteFile(f, w.stdout.Bytes(), 0o644)
		ls, err := analysis.Load(f)
		if err != nil || len(ls) != 1 {
			t.Fatalf("worker %d: %d lines, %v", i, len(ls), err)
		}
		if got := ls[0].Params["start_at"]; got != at.Format(time.RFC3339Nano) {
			t.Errorf("worker %d started at %v, want the released %v", i, got, at.Format(time.RFC3339Nano))
		}
		if !ls[0].TS.After(at) {
			t.Errorf("worker %d wrote its line at %v, before the start instant %v", i, ls[0].TS, at)
		}
	}
}
