package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataFileWarehouse runs katbench data end to end on a file://
// warehouse: three verified lines, a table on stderr.
func TestDataFileWarehouse(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "data", "--warehouse", "file://"+filepath.Join(dir, "wh"),
		"--rows", "5k", "--batch-rows", "1000", "--rounds", "2", "--commit-ops", "3", "--history", "h.jsonl")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	recs := parseLines(t, stdout)
	want := map[string]int64{"data.append.5k": 2, "data.scan": 2, "data.commit.latency": 3}
	if len(recs) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(recs), len(want), stdout)
	}
	for _, r := range recs {
		if r.Target != "embedded" || r.Errors != 0 || r.Ops != want[r.Scenario] || r.Params["warehouse"] != "file" || r.Hist == "" {
			t.Errorf("%s: target %s ops %d errors %d warehouse %v (%s)", r.Scenario, r.Target, r.Ops, r.Errors, r.Params["warehouse"], r.FirstError)
		}
	}
	if !strings.Contains(stderr, "data.scan") || !strings.Contains(stderr, "ok") {
		t.Errorf("stderr has no table:\n%s", stderr)
	}
	hist, err := os.ReadFile(filepath.Join(dir, "h.jsonl"))
	if err != nil || strings.Count(string(hist), "\n") != len(want) {
		t.Errorf("history: %v, %d lines", err, strings.Count(string(hist), "\n"))
	}
	// The run's warehouse directory is removed afterwards (no --keep).
	if left, _ := os.ReadDir(filepath.Join(dir, "wh")); len(left) != 0 {
		t.Errorf("the run left %d entries in the warehouse", len(left))
	}
}

// TestDataWritesNoHistoryByDefault checks an ad-hoc data run appends to no
// history file (as run and transport: only --history FILE records), so a run
// inside the repository never touches the committed bench_history.jsonl.
func TestDataWritesNoHistoryByDefault(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "data", "--warehouse", "file://"+filepath.Join(dir, "wh"),
		"--rows", "2k", "--batch-rows", "1000", "--rounds", "1", "--commit-ops", "1")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if len(parseLines(t, stdout)) == 0 {
		t.Fatalf("no result lines on stdout:\n%s", stdout)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "wh" {
			t.Errorf("the run wrote %s into its working directory", e.Name())
		}
	}
}

func TestDataBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown target", []string{"nosuch"}, "valid: "},
		{"bad rows", []string{"--rows", "lots"}, "--rows"},
		{"zero rows", []string{"--rows", "0"}, "--rows"},
		{"bad compression", []string{"--compression", "lz4"}, "--compression"},
		{"bad file size", []string{"--target-file-size", "big"}, "--target-file-size"},
		{"bad transport", []string{"--transports", "pigeon"}, "--transports"},
		{"bad format", []string{"--format", "xml"}, "--format"},
		{"bad rounds", []string{"--rounds", "0"}, "--rounds"},
		{"bad durability", []string{"--durability", "sometimes"}, "sometimes"},
		{"bad warehouse scheme", []string{"--warehouse", "gs://b/p"}, "--warehouse"},
		{"warehouse without bucket", []string{"--warehouse", "s3:///p"}, "no bucket"},
		{"endpoint without scheme", []string{"--s3-endpoint", "127.0.0.1:9000"}, "missing scheme"},
		{"endpoint without keys", []string{"--s3-endpoint", "http://127.0.0.1:9"}, "needs S3 keys"},
		{"bad bucket", []string{"--warehouse", "s3://B_ad/x"}, "--warehouse"},
		{"bad prop", []string{"--prop", "novalue"}, "--prop"},
		{"unknown scenario", []string{"--scenario", "data.nosuch"}, "valid: "},
		{"bad scenario glob", []string{"--scenario", "data.[x"}, "--scenario"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			keep := filepath.Join(dir, "keep")
			args := append([]string{"data", "--history", "h.jsonl", "--dir", keep}, tc.args...)
			stdout, stderr, code := katbenchEnv(t, dir, []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "KATBENCH_S3_ENDPOINT="}, args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want exit 2 and no output (stderr %s)", code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			for _, p := range []string{"h.jsonl", "keep"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s was created", p)
				}
			}
		})
	}
}

// TestDataControlStore runs katbench data with no server: the in-process
// control S3 store, both transports, the raw PUT/GET baseline.
// TestDataAppendMemoryLimit: the appends run under a Go memory limit of
// twice the target file size (at least 128 MiB), said on the line with the
// peak RSS, unless the user set GOMEMLIMIT.
func TestDataAppendMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		name, gomemlimit, target string
		want                     any // go_memory_limit_mib; nil = absent
	}{
		{"from the target", "", "256MiB", float64(512)},
		{"floor", "", "16MiB", float64(128)},
		{"GOMEMLIMIT wins", "1GiB", "256MiB", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code := katbenchEnv(t, dir, []string{"GOMEMLIMIT=" + c.gomemlimit},
				"data", "--warehouse", "file://"+filepath.Join(dir, "wh"), "--rows", "3k", "--batch-rows", "1000",
				"--rounds", "1", "--scenario", "data.append.*", "--target-file-size", c.target, "--history", "")
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			recs := parseLines(t, stdout)
			if len(recs) != 1 {
				t.Fatalf("%d lines, want 1:\n%s", len(recs), stdout)
			}
			p := recs[0].Params
			if p["go_memory_limit_mib"] != c.want {
				t.Errorf("go_memory_limit_mib %v, want %v", p["go_memory_limit_mib"], c.want)
			}
			if rss, _ := recs[0].MeasureValue("peak_rss_mib"); rss < 1 {
				t.Errorf("peak_rss_mib %v", recs[0].Measures["peak_rss_mib"])
			}
		})
	}
}

func TestDataControlStore(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbenchEnv(t, dir, []string{"KATBENCH_S3_ENDPOINT=", "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="},
		"data", "--rows", "3k", "--batch-rows", "1000", "--rounds", "2", "--commit-ops", "2", "--raw-iterations", "2", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "on the in-process control S3 store") {
		t.Errorf("stderr does not say the run uses the in-process store:\n%s", stderr)
	}
	transports := []string{"http", "uring"}
	if strings.Contains(stderr, "transport uring unavailable") {
		transports = []string{"http"}
	}
	type key struct{ target, scenario string }
	seen := map[key]int{}
	for _, r := range parseLines(t, stdout) {
		if r.Errors != 0 || r.Ops == 0 {
			t.Errorf("%s %s %s: ops %d errors %d (%s)", r.Target, r.Scenario, r.Transport, r.Ops, r.Errors, r.FirstError)
		}
		switch {
		case strings.HasPrefix(r.Scenario, "data."):
			if r.Params["store"] != "in-process control" || r.Params["endpoint"] != nil {
				t.Errorf("%s %s: store %v endpoint %v, want the in-process store and no endpoint", r.Scenario, r.Transport, r.Params["store"], r.Params["endpoint"])
			}
			if r.Params["warehouse"] != "s3://katbench" || r.Params["transport"] != r.Transport {
				t.Errorf("%s %s: warehouse %v transport %v/%s", r.Scenario, r.Transport, r.Params["warehouse"], r.Params["transport"], r.Transport)
			}
			seen[key{r.Target + "/" + r.Transport, r.Scenario}]++
			// The store is in this process: uring lines say they polled.
			if w, _ := r.Params["uring_wait"].(string); (r.Transport == "uring") != strings.HasPrefix(w, "poll: the server listens in this process") {
				t.Errorf("%s %s: uring_wait %q", r.Scenario, r.Transport, w)
			}
			if _, limited := r.Params["go_memory_limit_mib"]; limited || r.Params["s3_store"] != "in-process control" {
				// The store's objects are on the heap: a limit sized for the append would thrash.
				t.Errorf("%s %s: go_memory_limit_mib %v s3_store %v, want no limit on the in-process store",
					r.Scenario, r.Transport, r.Params["go_memory_limit_mib"], r.Params["s3_store"])
			}
		case strings.HasPrefix(r.Scenario, "s3.put.") || strings.HasPrefix(r.Scenario, "s3.get."):
			if r.Params["endpoint"] != "control" {
				t.Errorf("%s: endpoint %v, want control", r.Scenario, r.Params["endpoint"])
			}
			seen[key{r.Target, r.Scenario[:6]}]++
		default:
			t.Errorf("unexpected line %s %s", r.Target, r.Scenario)
		}
	}
	for _, tr := range transports {
		for _, s := range []string{"data.append.3k", "data.scan", "data.commit.latency"} {
			if seen[key{"embedded/" + tr, s}] != 1 {
				t.Errorf("embedded/%s %s: %d lines, want 1", tr, s, seen[key{"embedded/" + tr, s}])
			}
		}
		for _, s := range []string{"s3.put", "s3.get"} {
			if seen[key{tr, s}] != 1 {
				t.Errorf("raw %s over %s: %d lines, want 1", s, tr, seen[key{tr, s}])
			}
		}
	}
}

// TestDataUnreachableEndpoint: a dead S3 endpoint is a clear error naming
// it, before anything is created.
func TestDataUnreachableEndpoint(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbenchEnv(t, dir, []string{"AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s"},
		"data", "--s3-endpoint", "http://127.0.0.1:1", "--dir", filepath.Join(dir, "keep"), "--history", "h.jsonl")
	if code != 1 || stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and no output (stderr %s)", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "127.0.0.1:1") || !strings.Contains(stderr, "unreachable") {
		t.Errorf("stderr %q does not name the unreachable endpoint", stderr)
	}
	if !strings.Contains(stderr, "the S3 store at http://127.0.0.1:1 (--s3-endpoint)") {
		t.Errorf("stderr %q does not say which store the run uses and where it came from", stderr)
	}
	// An endpoint left in the environment is said to come from there.
	_, stderr, _ = katbenchEnv(t, dir, []string{"KATBENCH_S3_ENDPOINT=http://127.0.0.1:1", "AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s"},
		"data", "--history", "")
	if !strings.Contains(stderr, "the S3 store at http://127.0.0.1:1 (KATBENCH_S3_ENDPOINT from the environment)") {
		t.Errorf("stderr %q does not say the endpoint came from the environment", stderr)
	}
	for _, p := range []string{"h.jsonl", "keep"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}
