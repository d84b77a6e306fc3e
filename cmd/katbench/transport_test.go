package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// TestTransportControlOnly runs the micro-bench end to end against the
// in-process control in a tiny configuration: one JSON line per scenario on
// stdout and in the history file, a table on stderr.
func TestTransportControlOnly(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "transport", "--iterations", "6", "--rounds", "2",
		"--sizes", "1KiB", "--concurrency", "1,2", "--transports", "http", "--history", "h.jsonl")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var scen []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var r results.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		if r.Target != "http" || r.Ops != 6 || r.Errors != 0 || r.Params["endpoint"] != "control" || r.Hist == "" {
			t.Errorf("line %s: target %s ops %d errors %d params %v", r.Scenario, r.Target, r.Ops, r.Errors, r.Params)
		}
		if r.Rounds != 2 || len(r.RoundOpsSec) != 2 || len(r.RoundP50US) != 2 || r.WarmupErrors == nil || r.ClockOverheadNS <= 0 {
			t.Errorf("line %s: rounds %d round_ops_sec %v round_p50_us %v warmup_errors %v clock_overhead_ns %v",
				r.Scenario, r.Rounds, r.RoundOpsSec, r.RoundP50US, r.WarmupErrors, r.ClockOverheadNS)
		}
		scen = append(scen, r.Scenario)
	}
	want := []string{"s3.head.c1", "s3.head.c2", "s3.get.1KiB.c1", "s3.get.1KiB.c2", "s3.put.1KiB.c1", "s3.put.1KiB.c2"}
	if !slices.Equal(scen, want) {
		t.Fatalf("scenarios %v, want %v", scen, want)
	}
	hist, err := os.ReadFile(filepath.Join(dir, "h.jsonl"))
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	if n := strings.Count(string(hist), "\n"); n != len(want) {
		t.Errorf("history holds %d lines, want %d", n, len(want))
	}
	if !strings.Contains(stderr, "endpoint control") || !strings.Contains(stderr, "s3.get.1KiB.c2") {
		t.Errorf("stderr has no table:\n%s", stderr)
	}
}

func TestTransportBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no scheme", []string{"127.0.0.1:7070"}, "missing scheme"},
		{"bad scheme", []string{"ftp://127.0.0.1:7070"}, "scheme"},
		{"nothing to run", []string{"--control=false"}, "nothing to measure"},
		{"bad size", []string{"--sizes", "4XB"}, "--sizes"},
		{"bad op", []string{"--s3-ops", "head,copy"}, "--s3-ops"},
		{"bad op, old flag", []string{"--ops", "head,copy"}, "--s3-ops"},
		{"old and new flag", []string{"--ops", "head", "--s3-ops", "get"}, "give one of them"},
		{"bad concurrency", []string{"--concurrency", "0"}, "--concurrency"},
		{"bad transport", []string{"--transports", "pigeon"}, "--transports"},
		{"bad format", []string{"--format", "xml"}, "--format"},
		{"negative iterations", []string{"--iterations", "-5"}, "--iterations"},
		{"two endpoints", []string{"http://a:1", "http://b:2"}, "arg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"transport", "--history", "h.jsonl"}, tc.args...)
			stdout, stderr, code := katbench(t, dir, args...)
			if code == 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want a failure and no output", code, stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "h.jsonl")); err == nil {
				t.Errorf("history file written for bad input")
			}
		})
	}
}

// TestTransportOldOpsFlag: the transport's old --ops (now --s3-ops, as
// --ops of run is a count) still measures the operations it names, and
// says once on stderr that the flag is --s3-ops; the lines record the
// command as typed.
func TestTransportOldOpsFlag(t *testing.T) {
	stdout, stderr, code := katbench(t, t.TempDir(), "transport", "--iterations", "4", "--rounds", "1",
		"--ops", "head", "--concurrency", "1", "--transports", "http", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "--ops is now --s3-ops"); n != 1 {
		t.Errorf("%d notices naming --s3-ops, want 1:\n%s", n, stderr)
	}
	var scen []string
	for _, r := range parseLines(t, stdout) {
		if r.Ops != 4 || r.Errors != 0 {
			t.Errorf("%s: ops %d errors %d, want 4 measured", r.Scenario, r.Ops, r.Errors)
		}
		scen = append(scen, r.Scenario)
	}
	if !slices.Equal(scen, []string{"s3.head.c1"}) {
		t.Errorf("scenarios %v, want only s3.head.c1", scen)
	}
}

// TestTransportFallbackWarnsOnce: with io_uring forced off, the run warns
// once and every line says it ran over http because uring fell back.
func TestTransportFallbackWarnsOnce(t *testing.T) {
	t.Setenv("KATBENCH_URING_FORCE_FAIL", "1")
	stdout, stderr, code := katbench(t, t.TempDir(), "transport", "--iterations", "4", "--rounds", "2",
		"--s3-ops", "head,get", "--sizes", "1KiB", "--concurrency", "1", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "warning:"); n != 1 {
		t.Errorf("%d warning lines, want 1:\n%s", n, stderr)
	}
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		lines++
		var r results.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Target != "http" || r.Transport != "http" || !strings.HasPrefix(r.TransportFallback, "uring: ") {
			t.Errorf("%s: target %q transport %q fallback %q", r.Scenario, r.Target, r.Transport, r.TransportFallback)
		}
	}
	if lines != 2 {
		t.Errorf("%d lines, want 2 (head, get over http once each)", lines)
	}
}

// TestTransportDeadEndpointFailsFirst: an unreachable ENDPOINT fails the
// run before anything is measured (no line, not even the control's).
func TestTransportDeadEndpointFailsFirst(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbenchEnv(t, dir, []string{"AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s"},
		"transport", "http://127.0.0.1:1", "--history", "")
	if code != 1 || stdout != "" {
		t.Fatalf("exit %d, stdout %.300q; want exit 1 with nothing measured (stderr %s)", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "127.0.0.1:1") || !strings.Contains(stderr, "unreachable") {
		t.Errorf("stderr %q does not name the unreachable endpoint", stderr)
	}
}
