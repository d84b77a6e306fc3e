package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareExitStatus(t *testing.T) {
	dir := t.TempDir()
	targets, scens := []string{"embedded", "rest"}, []string{"load_table.latency", "table_exists.latency"}
	base := func(tg, s string) float64 {
		if tg == "rest" {
			return 100
		}
		return 1
	}
	slowRest := func(tg, s string) float64 {
		if tg == "rest" && s == "load_table.latency" {
			return 150
		}
		return base(tg, s)
	}
	// Each side is five independent runs (files), given as a list.
	side := func(prefix string, seed uint64, us func(string, string) float64) (string, []string) {
		var paths []string
		for i := range 5 {
			paths = append(paths, writeHistory(t, dir, fmt.Sprintf("%s%012d", prefix, i), seed*10+uint64(i), us, targets, scens))
		}
		return strings.Join(paths, ","), paths
	}
	old, oldPaths := side("0ld0", 1, base)
	rerun, rerunPaths := side("5ame", 2, base)
	regressed, slowPaths := side("5l0w", 3, slowRest)
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(dir, "history.jsonl")
	var all []byte
	for _, p := range append(append(oldPaths, rerunPaths...), slowPaths...) {
		b, _ := os.ReadFile(p)
		all = append(all, b...)
	}
	if err := os.WriteFile(hist, all, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"rerun of the same build", []string{old, rerun}, 0, "0 regressions"},
		{"constructed regression", []string{old, regressed}, 1, "REGRESSION"},
		{"regression by run ids in history", []string{"--history", hist, "0ld0000000000000,0ld0000000000001,0ld0000000000002,0ld0000000000003,0ld0000000000004", "5l0w000000000000,5l0w000000000001,5l0w000000000002,5l0w000000000003,5l0w000000000004"}, 1, "REGRESSION"},
		{"one run a side cannot decide", []string{oldPaths[0], slowPaths[0]}, 0, "need 4 runs"},
		{"equivalence", []string{"--margin", "10%", old, rerun}, 0, "same within ±10 %"},
		{"bad margin", []string{"--margin", "lots", old, rerun}, 2, "--margin"},
		{"correction printed", []string{old, rerun}, 0, "Benjamini-Hochberg over 4 tests"},
		{"regression under a raised threshold", []string{"--threshold", "60", old, regressed}, 0, "slower"},
		{"jsonl", []string{"--format", "jsonl", old, rerun}, 0, `"verdict":"no significant change"`},
		{"unreadable file", []string{filepath.Join(dir, "nope.jsonl"), rerun}, 2, "OLD"},
		{"empty side", []string{old, empty}, 2, "NEW has no measured lines"},
		{"unknown run", []string{"--history", hist, "0ld0000000000001", "9999"}, 2, "NEW"},
		{"bad metric", []string{"--metric", "p42", old, rerun}, 2, "p42"},
		{"one argument", []string{old}, 2, "accepts 2 arg"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := katbench(t, dir, append([]string{"compare"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.code, tc.want, out, errOut)
			}
		})
	}
}
