package main

import (
	"os"
	"strings"
	"testing"
)

// The ext_*_test.go files each add one extension — a competitor, a
// catalog scenario, an S3 operation, a transport, a data-plane scenario —
// in that one file, registered from its init function as a real one is
// from its own file, and run it through the command line. The command
// line is this test binary run as katbench (katbenchExt): its init
// functions registered the extensions, so they exist there and nowhere
// else, never in the real binary (TestExtNotInRealBinary).

// asKatbench makes the test binary run main instead of the tests
// (TestMain).
const asKatbench = "KATBENCH_TEST_RUN_AS_KATBENCH"

// katbenchExt runs the test binary as katbench, with the test files'
// extensions registered, in dir with env added; it returns stdout, stderr
// and the exit code.
func katbenchExt(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runExe(t, exe, dir, append([]string{asKatbench + "=1"}, env...), args...)
}

// extList is `katbench list` with the extensions registered.
func extList(t *testing.T) string {
	t.Helper()
	stdout, stderr, code := katbenchExt(t, t.TempDir(), nil, "list")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	return stdout
}

// extLines runs args through katbenchExt in a fresh directory, wants exit
// 0, and returns the result lines whose scenario is scenario.
func extLines(t *testing.T, env []string, scenario string, args ...string) []map[string]any {
	t.Helper()
	dir := t.TempDir()
	stdout, stderr, code := katbenchExt(t, dir, env, append(args, "--history", "")...)
	if code != 0 {
		t.Fatalf("katbench %s: exit %d\nstderr: %s", strings.Join(args, " "), code, stderr)
	}
	var out []map[string]any
	for _, l := range jsonLines(t, stdout) {
		if l["scenario"] == scenario {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Fatalf("katbench %s: no line of %s in\n%s", strings.Join(args, " "), scenario, stdout)
	}
	return out
}

// wantMeasured fails unless line l was measured: ops done, none failed,
// a p50 above zero, and no skip.
func wantMeasured(t *testing.T, l map[string]any) {
	t.Helper()
	ops, _ := l["ops"].(float64)
	p50, _ := l["p50_us"].(float64)
	if ops < 1 || l["errors"] != 0.0 || p50 <= 0 || l["skipped"] != nil {
		t.Errorf("line %v %v: ops %v errors %v p50_us %v skipped %v; want measured, no errors", l["target"], l["scenario"], l["ops"], l["errors"], l["p50_us"], l["skipped"])
	}
}

// wantExtUsageError runs args through katbenchExt and wants exit 2, a
// message on stderr containing every one of want, nothing on stdout and
// nothing written in the working directory.
func wantExtUsageError(t *testing.T, env []string, args []string, want ...string) {
	t.Helper()
	dir := t.TempDir()
	stdout, stderr, code := katbenchExt(t, dir, env, args...)
	if code != 2 {
		t.Fatalf("katbench %s: exit %d, want 2; stderr %q", strings.Join(args, " "), code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("katbench %s: stderr %q does not say %q", strings.Join(args, " "), stderr, w)
		}
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input wrote %v", entries)
	}
}

// TestExtNotInRealBinary: the extensions the tests register exist in the
// test binary only; the real binary's list names none of them. `katbench
// list` shows no transports: the valid ones are named by --transports'
// error.
func TestExtNotInRealBinary(t *testing.T) {
	real, stderr, code := katbench(t, t.TempDir(), "list")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	ext := extList(t)
	for _, name := range []string{extCompetitorName, extScenarioName, "s3." + string(extOpName), extDataName} {
		if strings.Contains(real, name) {
			t.Errorf("the real binary's list names the test extension %s", name)
		}
		if !strings.Contains(ext, name) {
			t.Errorf("the test binary's list does not name %s", name)
		}
	}
	args := []string{"transport", "--quick", "--transports", "nosuch"}
	_, realErr, _ := katbench(t, t.TempDir(), args...)
	_, extErr, _ := katbenchExt(t, t.TempDir(), nil, args...)
	if !strings.Contains(realErr, "http") || strings.Contains(realErr, string(extTransportName)) || !strings.Contains(extErr, string(extTransportName)) {
		t.Errorf("--transports nosuch: the real binary says %q, the test binary %q; want %s named by the test binary only", realErr, extErr, extTransportName)
	}
}
