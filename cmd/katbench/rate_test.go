package main

import (
	"strings"
	"testing"
)

func TestRateFlagsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"embedded", "--rate", "-5"},
		{"embedded", "--rate", "1000", "--rate-workers", "0"},
		{"embedded", "--shard", "2/2"},
		{"embedded", "--shards", "3"}, // no JOB_COMPLETION_INDEX
		{"embedded", "--start-at", "tomorrow"},
	} {
		_, errOut, code := katbench(t, dir, append(args, "--history", "")...)
		if code != 2 || !strings.Contains(errOut, "--") {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
