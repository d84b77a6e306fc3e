package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/catalog"
)

// TestClosedStdoutStillCleansUp: a run whose stdout reader is gone (`| head`
// after it exited) must not die of SIGPIPE: it drops the dataset it made on
// the remote server, removes its temp dir and exits non-zero, saying why.
// The reader is closed before the run starts, so the first line already
// meets a broken pipe — after the dataset was built on the server.
func TestClosedStdoutStillCleansUp(t *testing.T) {
	dir := t.TempDir()
	catDir := filepath.Join(dir, "served")
	addr, stop := startServe(t, "rest", catDir)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // no reader: every write to stdout fails with EPIPE
	cmd := exec.Command(bin, "rest", addr, "--peer", "", "--quick", "--tables", "8", "--ops", "50",
		"--create-ops", "10", "--duration", "30ms", "--warmup", "5ms", "--threads", "1", "--format", "jsonl", "--history", "")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BENCH_QUICK=", "BENCH_DURABILITY=", "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("run with a closed stdout: %v, want a non-zero exit\n%s", err, stderr.String())
	}
	if !ee.Exited() || ee.ExitCode() == 0 {
		t.Fatalf("run with a closed stdout ended with %v (a signal?), want a non-zero exit\n%s", ee, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stdout was closed") {
		t.Errorf("stderr does not say stdout was closed:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "dropping the dataset") {
		t.Errorf("stderr does not show the dataset being dropped:\n%s", stderr.String())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "katbench-*")); len(left) != 0 {
		t.Errorf("temp dirs left behind: %v", left)
	}
	stop()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: catDir, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if nss, err := cat.ListNamespaces(context.Background(), nil); err != nil || len(nss) != 0 {
		t.Errorf("served catalog holds %v (err %v) after the broken run, want nothing", nss, err)
	}
}
