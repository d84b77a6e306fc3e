package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/scenarios"
)

func TestABBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.jsonl")
	if err := os.WriteFile(exists, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run := []string{"--", "run", "embedded", "--quick"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"--old", bin, "--new", bin}, "after --"},
		{"no old", append([]string{"--new", bin}, run...), "--old and --new"},
		{"too few runs", append([]string{"--old", bin, "--new", bin, "--runs", "3"}, run...), "at least 4 runs"},
		{"not a build", append([]string{"--old", bin, "--new", "no-such-rev-or-file", "--repo", dir}, run...), "neither an executable nor a revision"},
		{"out exists", append([]string{"--old", bin, "--new", bin, "--out", exists}, run...), "does not overwrite"},
		{"bad env", append([]string{"--old", bin, "--new", bin, "--new-env", "NOEQUALS"}, run...), "NAME=VALUE"},
		{"bad margin", append([]string{"--old", bin, "--new", bin, "--margin", "-5%"}, run...), "--margin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := katbench(t, dir, append([]string{"ab"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 mentioning %q (stdout %q)", code, errOut, tc.want, out)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Fatalf("%d entries in the directory: bad input wrote something", len(ents))
			}
		})
	}
}

// An injected slowdown on the new side is a regression (six runs a side:
// with the counters beside p50 the comparison makes about ten tests, and
// one cell alone passes the correction only from 5 runs on); every run's lines
// are kept with their side, and the delay is on the slowed lines.
func TestABFindsAnInjectedSlowdown(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ab.jsonl")
	stdout, stderr, code := katbench(t, dir, "ab", "--old", bin, "--new", bin, "--runs", "6", "--cooldown", "0s", "--max-load", "0",
		"--out", out, "--new-env", scenarios.EnvTestDelay+"=embedded:200",
		"--", "run", "embedded", "--quick", "--tables", "20", "--ops", "200", "--scenario", "control.latency,load_table.latency")
	if code != 1 || !strings.Contains(stdout, "REGRESSION") {
		t.Fatalf("exit %d, want 1 with a regression:\n%s\n%s", code, stdout, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs := map[string]map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l struct {
			RunID    string         `json:"run_id"`
			Scenario string         `json:"scenario"`
			Params   map[string]any `json:"params"`
			Counters map[string]any `json:"counters"`
			AB       struct {
				Side   string `json:"side"`
				LoadOK bool   `json:"load_ok"`
			} `json:"ab"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if runs[l.AB.Side] == nil {
			runs[l.AB.Side] = map[string]bool{}
		}
		runs[l.AB.Side][l.RunID] = true
		_, delayed := l.Params["test_delay_us"]
		if want := l.AB.Side == "new" && l.Scenario == "load_table.latency"; delayed != want {
			t.Fatalf("%s %s: test_delay_us present %v, want %v", l.AB.Side, l.Scenario, delayed, want)
		}
		if l.Counters["allocs_per_op"] == nil || !l.AB.LoadOK {
			t.Fatalf("line without counters or load record: %s", sc.Bytes())
		}
	}
	if len(runs["old"]) != 6 || len(runs["new"]) != 6 {
		t.Fatalf("runs per side %d/%d, want 6/6", len(runs["old"]), len(runs["new"]))
	}
	// The file compares the same way again.
	again, _, code := katbench(t, dir, "compare", "--ab", out, "--metric", "p50")
	if code != 1 || !strings.Contains(again, "REGRESSION") {
		t.Fatalf("compare --ab: exit %d\n%s", code, again)
	}
}

func TestBadTestDelayIsAUsageError(t *testing.T) {
	for _, v := range []string{"fast", "rest:-3", "rest:"} {
		dir := t.TempDir()
		_, errOut, code := katbenchEnv(t, dir, []string{scenarios.EnvTestDelay + "=" + v}, "run", "embedded", "--quick", "--dir", filepath.Join(dir, "work"))
		if code != 2 || !strings.Contains(errOut, scenarios.EnvTestDelay) {
			t.Fatalf("%s=%q: exit %d, stderr %q; want exit 2 naming the variable", scenarios.EnvTestDelay, v, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "work")); err == nil {
			t.Fatalf("%s=%q: the run created its directory before refusing", scenarios.EnvTestDelay, v)
		}
	}
}
