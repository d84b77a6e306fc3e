package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestBackgroundIOBadValuesExitTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"not a size", []string{"--background-io", "lots"}, "--background-io"},
		{"negative", []string{"--background-io", "-1GiB"}, "--background-io"},
		{"below 1MiB", []string{"--background-io", "4KiB"}, "--background-io"},
		{"bad rate", []string{"--background-io", "1GiB", "--background-io-rate", "fast"}, "--background-io-rate"},
		{"negative rate", []string{"--background-io", "1GiB", "--background-io-rate", "-5MiB"}, "--background-io-rate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUsageError(t, nil, append([]string{"run", "embedded"}, c.args...), c.want) })
	}
}

// TestBackgroundIORun: a run with a neighbour says on every measured line
// what the neighbour wrote, and leaves no neighbour file behind.
func TestBackgroundIORun(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	stdout, stderr, code := katbench(t, dir, "run", "embedded", "--quick", "--tables", "10", "--dir", work,
		"--scenario", "create_table.throughput.t1", "--create-ops", "20", "--format", "jsonl",
		"--background-io", "2MiB", "--background-io-rate", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var n int
	for _, l := range parseLines(t, stdout) {
		if l.Skipped != "" {
			continue
		}
		n++
		if l.Params["background_io_bytes"] != float64(2<<20) || l.Params["background_io_rate_b"] != float64(0) {
			t.Errorf("%s: params %v; want the neighbour's size and rate", l.Target, l.Params)
		}
		if w, ok := l.MeasureValue("background_io_written"); !ok || w <= 0 {
			t.Errorf("%s: background_io_written %v (%v); want the bytes the neighbour wrote", l.Target, w, ok)
		}
	}
	if n < 2 { // the catalog and its floor
		t.Fatalf("%d measured lines, want the catalog's and the floor's:\n%s", n, stdout)
	}
	if _, err := os.Stat(filepath.Join(work, "background-io")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the neighbour's directory after the run: %v; want it removed", err)
	}
}

// TestBackgroundIOStopsOnInterrupt: Ctrl-C during a run stops the
// neighbour and removes its file.
func TestBackgroundIOStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	cmd := exec.Command(bin, "run", "embedded", "--quick", "--tables", "10", "--dir", work,
		"--scenario", "create_table.throughput.t1", "--duration", "5m", "--warmup", "5m", "--format", "jsonl",
		"--background-io", "64MiB", "--background-io-rate", "1MiB")
	cmd.Env = append(os.Environ(), "BENCH_QUICK=", "BENCH_DURABILITY=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	file := filepath.Join(work, "background-io", "neighbour.bin")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fi, err := os.Stat(file); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the neighbour's file never appeared")
		}
		time.Sleep(10 * time.Millisecond) // polling for the file, with a deadline
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Errorf("an interrupted run: %v; want a non-zero exit", err)
	}
	if _, err := os.Stat(filepath.Join(work, "background-io")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the neighbour's directory after Ctrl-C: %v; want it removed", err)
	}
}
