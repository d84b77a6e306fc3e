package main

import (
	"testing"
)

// TestHistoryBadInputExitsTwo: bad --snapshots levels, a history larger
// than the disk, and a zero page size are usage errors (exit 2) with a
// message saying what is wrong, before anything is created.
func TestHistoryBadInputExitsTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative", []string{"embedded", "--snapshots", "-1"}, "--snapshots \"-1\": -1 snapshots: want 0..100000"},
		{"not a number", []string{"embedded", "--snapshots", "abc"}, "\"abc\" is not a snapshot count"},
		{"one bad of several", []string{"run", "embedded", "rest", "--snapshots", "0,100,x"}, "\"x\" is not a snapshot count"},
		{"empty", []string{"embedded", "--snapshots", ""}, "--snapshots ''"},
		{"twice", []string{"embedded", "--snapshots", "10,10"}, "given twice"},
		{"too deep", []string{"embedded", "--snapshots", "1000000"}, "want 0..100000"},
		{"no tables", []string{"embedded", "--snapshots", "10", "--history-tables", "0"}, "history tables per level"},
		{"bad build", []string{"embedded", "--snapshots", "10", "--history-build", "copy"}, "history build \"copy\""},
		{"shape without levels", []string{"embedded", "--history-tables", "5"}, "give --snapshots too"},
		// 1,000 tables of 100,000 snapshots: terabytes, more than any test
		// machine's free space; the estimate is in the message.
		{"more than the disk", []string{"run", "embedded", "rest", "--snapshots", "0,100000", "--history-tables", "1000"}, "the history tables need about"},
		{"page size 0", []string{"embedded", "--page-size", "0"}, "--page-size 0: want 1..10000"},
		{"page size negative", []string{"embedded", "--page-size", "-3"}, "--page-size -3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUsageError(t, nil, c.args, c.want) })
	}
}
