package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/analysis"
)

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	us := func(tg, s string) float64 { return 100 }
	a := writeHistory(t, dir, "aaaa000000000001", 1, us, []string{"rest"}, []string{"load_table.latency"})
	b := writeHistory(t, dir, "bbbb000000000002", 2, us, []string{"rest"}, []string{"load_table.latency"})
	out := filepath.Join(dir, "merged.jsonl")
	if _, errOut, code := katbench(t, dir, "merge", a, b, "-o", out); code != 0 {
		t.Fatalf("merge exit %d: %s", code, errOut)
	}
	merged, err := analysis.Load(out)
	if err != nil || len(merged) != 1 {
		t.Fatalf("merged file: %d lines, %v", len(merged), err)
	}
	la, _ := analysis.Load(a)
	lb, _ := analysis.Load(b)
	if merged[0].Ops != la[0].Ops+lb[0].Ops {
		t.Fatalf("merged ops %d, want %d + %d", merged[0].Ops, la[0].Ops, lb[0].Ops)
	}
	// Bad input: exit 2 and the output file is not touched.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{not json\n"), 0o644)
	before, _ := os.ReadFile(out)
	if _, errOut, code := katbench(t, dir, "merge", a, bad, "-o", out); code != 2 || !strings.Contains(errOut, "bad.jsonl:1") {
		t.Fatalf("bad input: exit %d, %s", code, errOut)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Fatal("bad input changed the output file")
	}
}
