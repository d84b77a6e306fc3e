package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/commitcheck"
	"github.com/nordisk/katbench/internal/results"
)

func TestVerifyUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no competitor", []string{"verify"}, "requires at least 1 arg"},
		{"unknown competitor", []string{"verify", "nosuch"}, "unknown competitor"},
		{"bad writers", []string{"verify", "embedded", "--writers", "1,x"}, "--writers"},
		{"zero tables", []string{"verify", "embedded", "--tables", "0"}, "--tables"},
		{"both ends", []string{"verify", "embedded", "--commits", "5", "--duration", "1s"}, "give one"},
		{"negative retries", []string{"verify", "embedded", "--commit-retries", "-1"}, "--commit-retries"},
		{"kill a catalog katbench cannot crash", []string{"verify", "sql", "--kill-every", "1s"}, "--kill-every"},
		{"kill the writers of a cell that ends by count", []string{"verify", "embedded", "--kill-every", "1s", "--commits", "5"}, "--kill-every on embedded kills its writers"},
		{"bad backoff", []string{"verify", "embedded", "--commit-backoff", "1s:10ms"}, "--commit-backoff"},
		{"kill a remote server", []string{"verify", "rest=http://127.0.0.1:1", "--kill-every", "1s"}, "--kill-every"},
		{"bad label", []string{"verify", "embedded", "--label", "Not A Label"}, "a label is"},
		{"history in a missing directory", []string{"verify", "embedded", "--commits", "1", "--history", "/nonexistent/dir/h.jsonl"}, "history"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUsageError(t, nil, c.args, c.want) })
	}
}

// verifyLines runs katbench verify with args (writing to --out) and
// returns the exit code, stdout and the lines written.
func verifyLines(t *testing.T, args ...string) (int, string, []results.Record) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "verify.jsonl")
	stdout, stderr, code := katbench(t, dir, append(append([]string{"verify"}, args...), "--out", out)...)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("exit %d, no lines: %v\nstderr %s", code, err, stderr)
	}
	var recs []results.Record
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r results.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return code, stdout, recs
}

func measure(t *testing.T, r results.Record, name string) float64 {
	t.Helper()
	v, ok := r.MeasureValue(name)
	if !ok {
		t.Fatalf("line of %s W=%d has no %s: %v", r.Target, r.Threads, name, r.Measures)
	}
	return v
}

// TestVerifyEmbeddedCells: one line per cell, every commit accounted for,
// no anomaly on our catalog, exit 0.
func TestVerifyEmbeddedCells(t *testing.T) {
	code, stdout, recs := verifyLines(t, "embedded", "--writers", "1,4", "--commits", "40", "--commit-retries", "20")
	if code != 0 || len(recs) != 2 {
		t.Fatalf("exit %d, %d lines\n%s", code, len(recs), stdout)
	}
	for i, r := range recs {
		if r.Scenario != "verify.commits" || r.Threads != []int{1, 4}[i] || r.Hist == "" || r.P99US <= 0 {
			t.Errorf("line %d: %s W=%d hist %t p99 %v", i, r.Scenario, r.Threads, r.Hist != "", r.P99US)
		}
		if got := measure(t, r, "acked") + measure(t, r, "refused") + measure(t, r, "indeterminate"); got != 40 {
			t.Errorf("W=%d: %v outcomes, want 40", r.Threads, got)
		}
		noAnomaly(t, r, fmt.Sprintf("W=%d on the embedded catalog", r.Threads))
		measure(t, r, "conflicts_per_commit")
		measure(t, r, "round_trips_per_commit")
	}
	if !strings.Contains(stdout, "anomalies: lost 0 duplicated 0 phantom 0 forked 0 unreadable 0") {
		t.Errorf("no summary on stdout:\n%s", stdout)
	}
}

// TestVerifyNoMarkersLeavesChecksAbsent: a storm without markers is not
// checked, and its line says so by having no anomaly fields — never 0.
func TestVerifyNoMarkersLeavesChecksAbsent(t *testing.T) {
	code, _, recs := verifyLines(t, "embedded", "--writers", "2", "--commits", "20", "--no-markers")
	if code != 0 || len(recs) != 1 {
		t.Fatalf("exit %d, %d lines", code, len(recs))
	}
	for _, k := range []string{"lost", "duplicated", "phantom", "forked", "unreadable", "refused", "indeterminate"} {
		if _, ok := recs[0].MeasureValue(k); ok {
			t.Errorf("%s present on an unchecked line", k)
		}
	}
	if measure(t, recs[0], "acked") == 0 {
		t.Error("nothing acknowledged")
	}
}

// TestVerifyKillRest: kill -9 of our REST server, then of our gRPC server,
// during the storm, each restarted on the same state: the check runs on
// the recovered server and finds no acknowledged commit lost.
func TestVerifyKillRest(t *testing.T) {
	for _, front := range []string{"rest", "grpc"} {
		t.Run(front, func(t *testing.T) {
			code, stdout, recs := verifyLines(t, front, "--writers", "4", "--duration", "4s", "--kill-every", "500ms", "--seed", "11")
			if code != 0 || len(recs) != 1 {
				t.Fatalf("exit %d, %d lines\n%s", code, len(recs), stdout)
			}
			r := recs[0]
			if kills, _ := r.Params["kills"].(float64); kills < 1 {
				t.Fatalf("no kill happened: %v", r.Params)
			}
			if r.Params["kill_seed"] != float64(12) {
				t.Errorf("kill_seed %v, want 12 (the seed plus the cell)", r.Params["kill_seed"])
			}
			if measure(t, r, "acked") == 0 {
				t.Fatalf("nothing acknowledged across the kills\n%s", stdout)
			}
			noAnomaly(t, r, "after kill -9\n"+stdout)
		})
	}
}

// TestVerifyKillWriters: on the embedded catalog on disk (with and
// without its commit log), --kill-every kills the writers' child process
// and restarts it on the same files; the check, from a fresh open, finds
// nothing acknowledged lost.
func TestVerifyKillWriters(t *testing.T) {
	for _, name := range []string{"embedded", "embedded-log"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, recs := verifyLines(t, name, "--writers", "4", "--duration", "4s", "--kill-every", "500ms", "--seed", "11",
				"--commit-retries", "50", "--commit-backoff", "1ms:50ms")
			if code != 0 || len(recs) != 1 {
				t.Fatalf("exit %d, %d lines\n%s", code, len(recs), stdout)
			}
			r := recs[0]
			if kills, _ := r.Params["kills"].(float64); kills < 1 || r.Params["killed"] != "writers" {
				t.Fatalf("no kill of the writers happened: %v", r.Params)
			}
			if measure(t, r, "acked") == 0 {
				t.Fatalf("nothing acknowledged across the kills\n%s", stdout)
			}
			noAnomaly(t, r, "after kill -9\n"+stdout)
		})
	}
}

// TestVerifyHistoryAndLabel: --history gets the same lines as --out, each
// carrying --label, for katbench readme's layout=verify tables.
func TestVerifyHistoryAndLabel(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history.jsonl")
	code, _, recs := verifyLines(t, "embedded", "--writers", "1", "--commits", "5", "--history", hist, "--label", "verify-test")
	if code != 0 || len(recs) != 1 || recs[0].Label != "verify-test" {
		t.Fatalf("exit %d, %d lines, label %q", code, len(recs), recs[0].Label)
	}
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatalf("no history: %v", err)
	}
	var h results.Record
	if err := json.Unmarshal(b, &h); err != nil || strings.Count(string(b), "\n") != 1 {
		t.Fatalf("history %q: %v", b, err)
	}
	if h.Label != "verify-test" || h.RunID != recs[0].RunID || h.Scenario != "verify.commits" || measure(t, h, "acked") != measure(t, recs[0], "acked") {
		t.Errorf("history line %s/%s run %s label %q, want the --out line's (run %s) labelled verify-test", h.Target, h.Scenario, h.RunID, h.Label, recs[0].RunID)
	}
}

// noAnomaly fails the test for every anomaly kind line r counts (where
// says which line and when).
func noAnomaly(t *testing.T, r results.Record, where string) {
	t.Helper()
	for _, k := range commitcheck.Kinds {
		if v := measure(t, r, string(k)); v != 0 {
			t.Errorf("%s = %v, %s", k, v, where)
		}
	}
}
