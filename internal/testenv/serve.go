package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Pyiceberg installs (once, cached in KATBENCH_CACHE) pyiceberg with
// pyarrow through scripts/install-pyiceberg.sh and returns the venv's
// python. Without it the test stops as Need says (a failure in CI).
func Pyiceberg(t testing.TB) string {
	t.Helper()
	script := filepath.Join(RepoRoot(), "scripts", "install-pyiceberg.sh")
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%s: %w: %s", script, err, stderr.String())
	}
	Need(t, "pyiceberg", err)
	py := strings.TrimSpace(string(out))
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("%s printed %q, not a python: %v", script, py, err)
	}
	return py
}

// servedAt is what `katbench serve rest` prints on stderr once it listens.
const servedAt = "serving Iceberg REST at "

// ServeRest starts cmd, a `katbench serve rest --addr 127.0.0.1:0 …`
// process not yet started (its Stderr must be unset), and returns the URL
// the server printed once it listens (within 60 s) and a stop function:
// SIGTERM, then the process's whole stderr and its exit error (a kill and
// an error when it has not exited 30 s later). The process is stopped when
// the test ends in any case. Not safe for concurrent use of one stop.
func ServeRest(t testing.TB, cmd *exec.Cmd) (url string, stop func() (string, error)) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		t.Fatalf("start katbench serve rest: %v", err)
	}
	pw.Close()

	var (
		mu  sync.Mutex
		log strings.Builder
	)
	found := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			log.WriteString(line + "\n")
			mu.Unlock()
			if _, rest, ok := strings.Cut(line, servedAt); ok {
				u, _, _ := strings.Cut(rest, " ")
				select {
				case found <- u:
				default:
				}
			}
		}
	}()
	logText := func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}

	stopped := false
	stop = func() (string, error) {
		stopped = true
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return logText(), err
		}
		werr := make(chan error, 1)
		go func() { werr <- cmd.Wait() }()
		select {
		case err := <-werr:
			<-drained
			return logText(), err
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			return logText(), errors.New("katbench serve rest did not exit within 30s of SIGTERM")
		}
	}
	t.Cleanup(func() {
		if !stopped {
			_, _ = stop()
		}
	})

	select {
	case url = <-found:
		return url, stop
	case <-drained:
		select {
		case url = <-found: // printed its URL, then closed stderr
			return url, stop
		default:
		}
		_ = cmd.Wait()
		stopped = true
		t.Fatalf("katbench serve rest exited without printing its URL:\n%s", logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("katbench serve rest printed no URL within 60s:\n%s", logText())
	}
	return "", stop
}
