package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
)

// katbenchBin is the binary built once by TestMain; buildErr is why not.
var (
	katbenchBin string
	buildErr    error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "katbench-integration-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: temp dir:", err)
		os.Exit(1)
	}
	katbenchBin = filepath.Join(dir, "katbench")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", katbenchBin, "./cmd/katbench")
	cmd.Dir = testenv.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build ./cmd/katbench: %w\n%s", err, out)
	}
	cancel()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needKatbench fails the test when the binary could not be built: a build
// failure is a defect of this repository, never a missing outside part.
func needKatbench(t *testing.T) string {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return katbenchBin
}

// runResult is one finished katbench process.
type runResult struct {
	stdout, stderr string
	err            error
}

// runKatbench runs the binary with args in a temp working dir, env added to
// the test's environment, bounded by timeout.
func runKatbench(t *testing.T, timeout time.Duration, env []string, args ...string) runResult {
	t.Helper()
	bin := needKatbench(t)
	// Leave the test time to run its down scripts: a test killed by
	// go test's -timeout runs no cleanup and would leak the servers.
	if dl, ok := t.Deadline(); ok {
		if left := time.Until(dl) - 3*time.Minute; left < timeout {
			timeout = max(left, time.Second)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t.Logf("running katbench %s", strings.Join(args, " "))
	start := time.Now()
	err := cmd.Run()
	t.Logf("katbench finished in %s (err %v)", time.Since(start).Round(time.Second), err)
	if ctx.Err() != nil {
		t.Fatalf("katbench %s did not finish within %s\nstderr:\n%s", strings.Join(args, " "), timeout, tailLines(stderr.String(), 40))
	}
	return runResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// parseRecords reads katbench's JSONL stdout. Every non-empty line must be a
// result record.
func parseRecords(t *testing.T, out string) []results.Record {
	t.Helper()
	var recs []results.Record
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r results.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("stdout line is not a result record: %v\n%.300s", err, line)
		}
		if r.Target == "" || r.Scenario == "" {
			t.Fatalf("record without target or scenario: %.300s", line)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stdout: %v", err)
	}
	return recs
}

// byTarget indexes records as target → scenario → record.
func byTarget(recs []results.Record) map[string]map[string]results.Record {
	m := map[string]map[string]results.Record{}
	for _, r := range recs {
		if m[r.Target] == nil {
			m[r.Target] = map[string]results.Record{}
		}
		m[r.Target][r.Scenario] = r
	}
	return m
}

// throughputRows returns target's load_table.throughput.t* records.
func throughputRows(m map[string]results.Record) []results.Record {
	var rows []results.Record
	for name, r := range m {
		if strings.HasPrefix(name, "load_table.throughput.t") {
			rows = append(rows, r)
		}
	}
	return rows
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
