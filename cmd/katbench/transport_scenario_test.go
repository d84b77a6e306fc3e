package main

import (
	"slices"
	"strings"
	"testing"
)

// TestTransportScenarioSelects: --scenario picks cells by glob, as in run
// and data, and a glob that matches no cell is a usage error naming the
// valid ones.
func TestTransportScenarioSelects(t *testing.T) {
	stdout, stderr, code := katbench(t, t.TempDir(), "transport", "--iterations", "4", "--rounds", "2",
		"--sizes", "1KiB", "--concurrency", "1,2", "--transports", "http", "--history", "",
		"--format", "jsonl", "--scenario", "s3.get.*.c2,s3.head.c1")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var got []string
	for _, r := range parseLines(t, stdout) {
		got = append(got, r.Scenario)
		if r.Ops != 4 || r.Errors != 0 {
			t.Errorf("%s: ops %d errors %d", r.Scenario, r.Ops, r.Errors)
		}
	}
	if want := []string{"s3.head.c1", "s3.get.1KiB.c2"}; !slices.Equal(got, want) {
		t.Errorf("scenarios %v, want %v", got, want)
	}
	stdout, stderr, code = katbench(t, t.TempDir(), "transport", "--iterations", "4", "--sizes", "1KiB",
		"--concurrency", "1", "--history", "", "--scenario", "s3.get.4KiB.*")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "--scenario") || !strings.Contains(stderr, "s3.get.1KiB.c1") {
		t.Errorf("unmatched glob: exit %d stdout %q stderr %q; want exit 2 naming the valid scenarios", code, stdout, stderr)
	}
}
