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
