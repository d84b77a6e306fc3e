package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadmeCommand(t *testing.T) {
	dir := t.TempDir()
	us := func(tg, s string) float64 { return 50 }
	hist := writeHistory(t, dir, "4eadme0000000001", 9, us, []string{"rest"}, []string{"load_table.latency"})
	readme := filepath.Join(dir, "README.md")
	text := "# x\n<!-- katbench:table t run=4ead rows=load_table.latency:p50 -->\n<!-- /katbench:table -->\ntail\n"
	os.WriteFile(readme, []byte(text), 0o644)
	args := []string{"readme", "--file", readme, "--history", hist}
	if _, errOut, code := katbench(t, dir, append(args, "--check")...); code != 1 || !strings.Contains(errOut, "stale: t") {
		t.Fatalf("stale README: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(readme); string(b) != text {
		t.Fatal("--check wrote the README")
	}
	if _, errOut, code := katbench(t, dir, args...); code != 0 {
		t.Fatalf("readme: exit %d, %s", code, errOut)
	}
	if _, errOut, code := katbench(t, dir, append(args, "--check")...); code != 0 {
		t.Fatalf("after regenerating: exit %d, %s", code, errOut)
	}
	b, _ := os.ReadFile(readme)
	if !strings.Contains(string(b), "| load_table.latency p50 µs | 5") || !strings.HasSuffix(string(b), "<!-- /katbench:table -->\ntail\n") {
		t.Fatalf("README:\n%s", b)
	}
	os.WriteFile(readme, []byte("<!-- katbench:table t run=4ead colour=red -->\n<!-- /katbench:table -->\n"), 0o644)
	if _, errOut, code := katbench(t, dir, args...); code != 2 || !strings.Contains(errOut, "colour") {
		t.Fatalf("bad marker: exit %d, %s", code, errOut)
	}
}

// TestLabelledRunFillsTables: a run recorded with --label NAME is what the
// tables named NAME show, in every file readme is given; a bad label is a
// usage error that records nothing.
func TestLabelledRunFillsTables(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	bench := []string{"embedded", "--peer", "", "--quick", "--tables", "4", "--ops", "20", "--warmup", "1ms",
		"--scenario", "table_exists.latency", "--format", "jsonl", "--history", hist}
	if _, errOut, code := katbench(t, dir, append(bench, "--label", "Bad Label")...); code != 2 || !strings.Contains(errOut, "label") {
		t.Fatalf("bad label: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(hist); !os.IsNotExist(err) {
		t.Fatalf("a refused run wrote the history (stat: %v)", err)
	}
	out, errOut, code := katbench(t, dir, append(bench, "--label", "smoke")...)
	if code != 0 {
		t.Fatalf("labelled run: exit %d, %s", code, errOut)
	}
	if !strings.Contains(out, `"label":"smoke"`) {
		t.Fatalf("stdout lines lack the label:\n%s", out)
	}
	var runID string
	for _, f := range strings.Split(out, `"run_id":"`)[1:] {
		runID, _, _ = strings.Cut(f, `"`)
	}
	marker := "<!-- katbench:table smoke rows=table_exists.latency:p50 -->\n<!-- /katbench:table -->\n"
	a, b := filepath.Join(dir, "README.md"), filepath.Join(dir, "results.md")
	os.WriteFile(a, []byte("# a\n"+marker), 0o644)
	os.WriteFile(b, []byte("# b\n"+marker), 0o644)
	args := []string{"readme", "--file", a, "--file", b, "--history", hist}
	if _, errOut, code := katbench(t, dir, append(args, "--check")...); code != 1 || !strings.Contains(errOut, a) || !strings.Contains(errOut, b) {
		t.Fatalf("stale files: exit %d, %s", code, errOut)
	}
	_, errOut, code = katbench(t, dir, args...)
	if code != 0 || !strings.Contains(errOut, "wrote "+a) || !strings.Contains(errOut, "wrote "+b) {
		t.Fatalf("readme: exit %d, %s", code, errOut)
	}
	for _, f := range []string{a, b} {
		text, _ := os.ReadFile(f)
		if !strings.Contains(string(text), "from run `"+runID+"` (label `smoke`)") || !strings.Contains(string(text), "| table_exists.latency p50 µs | ") {
			t.Fatalf("%s:\n%s", f, text)
		}
	}
	if _, errOut, code := katbench(t, dir, append(args, "--check")...); code != 0 {
		t.Fatalf("after regenerating: exit %d, %s", code, errOut)
	}
	// A label file naming a run the history does not hold is refused.
	labels := filepath.Join(dir, "labels.tsv")
	os.WriteFile(labels, []byte("smoke\tdeadbeefdeadbeef\n"), 0o644)
	if _, errOut, code := katbench(t, dir, append(args, "--check", "--labels", labels)...); code != 2 || !strings.Contains(errOut, "deadbeef") {
		t.Fatalf("unknown run in the label file: exit %d, %s", code, errOut)
	}
}

// TestLabelOnEveryLineWriter: transport and data record --label too.
func TestLabelOnEveryLineWriter(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"transport", "--s3-ops", "head", "--concurrency", "1", "--iterations", "20", "--rounds", "1", "--transports", "http"},
		{"data", "--quick", "--rows", "1000", "--rounds", "1", "--transports", "http", "--scenario", "data.commit.latency", "--commit-ops", "2", "--raw=false"},
	} {
		out, errOut, code := katbench(t, dir, append(args, "--format", "jsonl", "--label", "lab-"+args[0])...)
		if code != 0 {
			t.Fatalf("%s: exit %d, %s", args[0], code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) == 0 || lines[0] == "" {
			t.Fatalf("%s wrote no lines", args[0])
		}
		for _, l := range lines {
			if !strings.Contains(l, `"label":"lab-`+args[0]+`"`) {
				t.Fatalf("%s: a line without the label: %s", args[0], l)
			}
		}
	}
}
