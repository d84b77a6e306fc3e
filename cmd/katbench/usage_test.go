package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestUsageErrorsBeforeAnythingRuns: stray arguments, an explicit empty
// namespace and malformed endpoints exit 2 at once — no dataset, no server
// contacted, nothing written (a run would take minutes and create files).
func TestUsageErrorsBeforeAnythingRuns(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"stray argument", []string{"embedded", "extra-arg"}, "takes no arguments"},
		{"stray argument to the peer", []string{"sql", "x"}, "takes no arguments"},
		{"stray target argument in run", []string{"run", "embedded=http://x"}, "takes no arguments"},
		{"empty namespace", []string{"embedded", "--namespace", ""}, "--namespace ''"},
		{"empty namespace with =", []string{"embedded", "--namespace="}, "--namespace ''"},
		{"malformed URL", []string{"rest", "http://[::1"}, "URL"},
		{"URL without scheme", []string{"rest", "127.0.0.1:8181"}, "not an http(s) URL"},
		{"URL with a bad port", []string{"nessie", "http://127.0.0.1:99999/iceberg", "warehouse"}, "port"},
		{"malformed URL in run", []string{"run", "rest", "polaris=ftp://x@katbench"}, "not an http(s) URL"},
		{"too many arguments", []string{"polaris", "http://127.0.0.1:1/api/catalog", "katbench", "x"}, "at most 2"},
		{"gRPC address without port", []string{"grpc", "127.0.0.1"}, "HOST:PORT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code := katbench(t, dir, append(c.args, "--dir", filepath.Join(dir, "work"))...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("katbench %q: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if strings.Contains(stderr, "starting") || strings.Contains(stderr, "dataset") {
				t.Errorf("something ran before the usage error: %q", stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("bad input wrote %v", entries)
			}
		})
	}
}

// TestUnknownUringWaitRefused: a KATBENCH_URING_WAIT that names no wait mode
// exits 2 before anything runs, for every command, instead of measuring the
// default wait under the name of another.
func TestUnknownUringWaitRefused(t *testing.T) {
	for _, args := range [][]string{
		{"transport", "--iterations", "10", "--rounds", "1"},
		{"embedded", "--dir", "work"},
		{"data", "--dir", "work"},
	} {
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code := katbenchEnv(t, dir, []string{"KATBENCH_URING_WAIT=hodl"}, args...)
			if code != 2 || !strings.Contains(stderr, `KATBENCH_URING_WAIT="hodl"`) || !strings.Contains(stderr, "hold") {
				t.Fatalf("katbench %q: exit %d, stderr %q; want exit 2 naming the value and the modes", args, code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("bad input wrote %v", entries)
			}
		})
	}
}

// TestCompetitorHelp: each competitor's help has examples, names the
// environment it reads and shows only the flags that apply to it; a
// remote server's --warehouse (the embedded catalog's) is refused with the
// positional WAREHOUSE named instead.
func TestCompetitorHelp(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name       string
		want, hide []string
	}{
		{"nessie", []string{"Examples:", "KATBENCH_NESSIE_URL", "KATBENCH_NESSIE_PROPS", "--prop", "not --warehouse"}, []string{"--durability string", "--warehouse string", "--s3-endpoint string"}},
		{"polaris", []string{"Examples:", "KATBENCH_POLARIS_WAREHOUSE", "8281/api/catalog"}, []string{"--durability string", "--transport string"}},
		{"embedded", []string{"Examples:", "--durability", "--warehouse"}, []string{"--prop stringArray"}},
		{"rest", []string{"Examples:", "--prop", "--warehouse", "credential="}, nil},
		{"capacity", []string{"Examples:", "--slo", "--start-rate", "--step-duration", "--mix"}, []string{"--rate float", "--scenario string", "--threads string", "--snapshots string", "--duration duration"}},
	}
	for _, c := range cases {
		stdout, _, code := katbench(t, dir, c.name, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", c.name, code)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s --help lacks %q:\n%s", c.name, w, stdout)
			}
		}
		for _, h := range c.hide {
			if strings.Contains(stdout, h) {
				t.Errorf("%s --help shows %q, which does not apply", c.name, h)
			}
		}
	}
	_, stderr, code := katbench(t, dir, "nessie", "http://127.0.0.1:1/iceberg", "--warehouse", "wh")
	if code != 2 || !strings.Contains(stderr, "katbench nessie URL WAREHOUSE") {
		t.Errorf("nessie --warehouse: exit %d, stderr %q; want exit 2 naming the positional WAREHOUSE", code, stderr)
	}
}

// TestVersion: --version names the commit (or says it is not recorded)
// and the Go toolchain.
func TestVersion(t *testing.T) {
	stdout, _, code := katbench(t, t.TempDir(), "--version")
	if code != 0 || !strings.HasPrefix(stdout, "katbench ") || !strings.Contains(stdout, "commit ") || !strings.Contains(stdout, runtime.Version()) {
		t.Fatalf("--version: exit %d, %q; want katbench, its commit and %s", code, stdout, runtime.Version())
	}
}

// TestQuickScenarioByLevel: a quick run whose --scenario names a level
// outside the quick levels (1, 4) runs it, as before quick runs had fewer
// levels.
func TestQuickScenarioByLevel(t *testing.T) {
	stdout, stderr, code := katbench(t, t.TempDir(), "embedded", "--peer", "", "--quick", "--tables", "4", "--ops", "20",
		"--duration", "30ms", "--warmup", "1ms", "--scenario", "load_table.throughput.t8", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := parseLines(t, stdout)
	if len(recs) != 1 || recs[0].Scenario != "load_table.throughput.t8" || recs[0].Ops == 0 {
		t.Fatalf("lines %+v, want one measured load_table.throughput.t8", recs)
	}
}
