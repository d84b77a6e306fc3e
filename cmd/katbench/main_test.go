package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var bin string

func TestMain(m *testing.M) {
	if os.Getenv(asKatbench) == "1" { // a child of katbenchExt (ext_main_test.go)
		main()
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "katbench-cli-*")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "katbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// katbench runs the binary in dir and returns stdout, stderr, exit code.
func katbench(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return katbenchEnv(t, dir, nil, args...)
}

// katbenchEnv runs the binary in dir with env overriding the environment.
func katbenchEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return runExe(t, bin, dir, env, args...)
}

// runExe runs exe with args in dir, the environment's BENCH_QUICK and
// BENCH_DURABILITY cleared and env added; it returns stdout, stderr and
// the exit code.
func runExe(t *testing.T, exe, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "BENCH_QUICK=", "BENCH_DURABILITY="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// wantUsageError runs katbench with args and --dir under a fresh temp dir
// (env overriding the environment) and checks that it exits 2 with a
// message mentioning want, prints nothing on stdout and writes nothing.
func wantUsageError(t *testing.T, env []string, args []string, want string) {
	t.Helper()
	dir := t.TempDir()
	stdout, stderr, code := katbenchEnv(t, dir, env, append(args, "--dir", filepath.Join(dir, "work"))...)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, want)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input wrote %v", entries)
	}
}

// jsonLines parses stdout's result lines.
func jsonLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		out = append(out, rec)
	}
	return out
}

func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown target", []string{"run", "nosuch"}, "valid: "},
		{"unknown scenario", []string{"embedded", "--scenario", "nosuch*"}, "valid: "},
		{"bad namespace slash", []string{"embedded", "--namespace", "a/b"}, "--namespace"},
		{"bad namespace dotdot", []string{"embedded", "--namespace", ".."}, "--namespace"},
		{"bad namespace control", []string{"embedded", "--namespace", "a\x01b"}, "--namespace"},
		{"bad durability", []string{"embedded", "--durability", "sometimes"}, "sometimes"},
		{"bad format", []string{"embedded", "--format", "xml"}, "--format"},
		{"bad threads", []string{"embedded", "--threads", "1,x"}, "--threads"},
		{"unknown flag", []string{"embedded", "--nosuch"}, "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUsageError(t, nil, c.args, c.want) })
	}
}

func TestUnwritableDirIsAClearError(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	_, stderr, code := katbench(t, dir, "embedded", "--quick", "--dir", filepath.Join(file, "sub"), "--history", "")
	if code != 1 || !strings.Contains(stderr, "--dir") {
		t.Fatalf("exit %d stderr %q, want exit 1 naming --dir", code, stderr)
	}
}

// TestEmbeddedQuickRunAppendsHistory runs a tiny end-to-end benchmark of the
// embedded catalog next to its peer and checks stdout and the history file
// hold the same complete lines.
func TestEmbeddedQuickRunAppendsHistory(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	args := []string{"embedded", "--quick", "--tables", "8", "--ops", "50", "--create-ops", "10", "--duration", "30ms",
		"--warmup", "5ms", "--threads", "1,2", "--history", hist}
	stdout, stderr, code := katbench(t, dir, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := jsonLines(t, stdout)
	lines := len(recs)
	targets := map[string]int{}
	for _, rec := range recs {
		targets[rec["target"].(string)]++
	}
	if targets["embedded"] == 0 || targets["embedded"] != targets["sql"] {
		t.Fatalf("lines per target = %v, want the same non-zero count for both", targets)
	}
	h, err := os.ReadFile(hist)
	if err != nil || string(h) != stdout {
		t.Fatalf("history differs from stdout (err %v)", err)
	}
	// A second run appends.
	if _, stderr, code := katbench(t, dir, args...); code != 0 {
		t.Fatalf("second run exit %d: %s", code, stderr)
	}
	h2, _ := os.ReadFile(hist)
	if got := strings.Count(string(h2), "\n"); got != 2*lines {
		t.Fatalf("history has %d lines after two runs, want %d", got, 2*lines)
	}
}

func TestListNamesCompetitorsAndScenarios(t *testing.T) {
	stdout, _, code := katbench(t, t.TempDir(), "list")
	for _, want := range []string{"embedded", "sql", "load_table.throughput.t32", "create_table.durability.none",
		"list_namespaces.latency", "catalog_crawl", "replace_view.latency", "load_table.revalidate.latency", "load_table.direct.latency",
		"data.append", "data.raw", "s3.get", "s3.list", "size,concurrency,rate", "s3 store, transport"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("list (exit %d) lacks %q:\n%s", code, want, stdout)
		}
	}
}
