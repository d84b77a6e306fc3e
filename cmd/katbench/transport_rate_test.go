package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// TestTransportRateBadInput: bad concurrency, rate and duration values
// exit 2 with a message naming the flag, before anything runs.
func TestTransportRateBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"concurrency 0", []string{"--concurrency", "0"}, "--concurrency"},
		{"concurrency 5000", []string{"--concurrency", "5000"}, "--concurrency"},
		{"concurrency 300 not allowed", []string{"--concurrency", "1,300"}, "--concurrency"},
		{"concurrency 1025 allowed", []string{"--concurrency", "1025", "--allow-high-concurrency"}, "--concurrency"},
		{"negative rate", []string{"--rate", "-1"}, "--rate"},
		{"bad percentage", []string{"--rate", "25%,5x%"}, "--rate"},
		{"zero percentage", []string{"--rate", "0%"}, "--rate"},
		{"percentage without http", []string{"--rate", "50%", "--transports", "uring"}, "--rate"},
		{"zero duration", []string{"--rate", "100", "--duration", "0s"}, "--duration"},
		{"zero seed", []string{"--seed", "0"}, "--seed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"transport", "--history", "h.jsonl"}, tc.args...)
			stdout, stderr, code := katbench(t, dir, args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want exit 2 and no output", code, stdout)
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

// TestTransportOpenLoop: --rate adds one open-loop line per cell and rate
// after the closed one, with the offered and achieved rates, CPU per
// operation and the resource facts on it.
func TestTransportOpenLoop(t *testing.T) {
	stdout, stderr, code := katbench(t, t.TempDir(), "transport", "--iterations", "20", "--rounds", "2",
		"--s3-ops", "head", "--concurrency", "2", "--transports", "http", "--rate", "100,50%", "--duration", "400ms", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var scen []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var r results.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		scen = append(scen, r.Scenario+" "+r.Loop)
		if r.Resources == nil || r.Resources.Threads == nil || *r.Resources.Threads <= 0 || r.Resources.FDs == nil || *r.Resources.FDs <= 0 {
			t.Errorf("%s: resources %+v", r.Scenario, r.Resources)
		}
		if r.Loop != results.Open {
			continue
		}
		if r.Ops <= 0 || r.Errors != 0 || r.Params["rate_spec"] == nil || r.Measures["achieved_rate"].Unit == "" || r.Measures["cpu_us_per_op"].Unit == "" {
			t.Errorf("%s: ops %d errors %d params %v", r.Scenario, r.Ops, r.Errors, r.Params)
		}
	}
	want := "s3.head.c2 closed,s3.head.c2.open.100ops open,s3.head.c2.open.50pct open"
	if got := strings.Join(scen, ","); got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
}
