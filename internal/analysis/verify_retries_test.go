package analysis

import (
	"errors"
	"strings"
	"testing"
)

// TestVerifyRetriesTable: one row per budget with its backoff and the time
// split; a line from before the split shows "—" for it.
func TestVerifyRetriesTable(t *testing.T) {
	var run []Line
	for _, s := range []string{
		`{"schema":4,"run_id":"r1","target":"rest","scenario":"verify.commits","threads":64,"ops":79,"ops_sec":6.1,"p50_us":1292900,"p99_us":4035000,` +
			`"params":{"tables":1,"commit_retries":4,"commit_backoff":"100ms:1m0s"},` +
			`"measures":{"acked":{"value":79,"unit":"count"},"refused":{"value":194,"unit":"count"},"indeterminate":{"value":0,"unit":"count"},` +
			`"failed_after_retries_pct":{"value":71.1,"unit":"%"},"retries_per_commit":{"value":1.96,"unit":"ratio"},"round_trips_per_commit":{"value":30.5,"unit":"ratio"},` +
			`"load_ms":{"value":1.234,"unit":"ms"},"write_ms":{"value":3.45,"unit":"ms"},"commit_call_ms":{"value":12.5,"unit":"ms"},"backoff_pct":{"value":61.4,"unit":"%"},` +
			`"lost":{"value":0,"unit":"count"},"duplicated":{"value":0,"unit":"count"},"phantom":{"value":0,"unit":"count"},"forked":{"value":0,"unit":"count"},"unreadable":{"value":0,"unit":"count"}}}`,
		`{"schema":4,"run_id":"r1","target":"rest","scenario":"verify.commits","threads":64,"ops":10,"ops_sec":1,"p50_us":1000,"p99_us":2000,"params":{"tables":1,"commit_retries":64},"measures":{}}`,
		`{"schema":4,"run_id":"r1","target":"grpc","scenario":"verify.commits","threads":64,"ops":1,"ops_sec":1,"p50_us":1,"params":{}}`,
	} {
		l, err := ParseLine([]byte(s))
		if err != nil {
			t.Fatalf("ParseLine: %v", err)
		}
		run = append(run, l)
	}
	got, err := verifyRetriesTable(Block{Attrs: map[string]string{"targets": "rest"}}, run)
	if err != nil {
		t.Fatalf("verifyRetriesTable: %v", err)
	}
	rows := strings.Split(strings.TrimSpace(got), "\n")
	if len(rows) != 4 || strings.Count(rows[1], "|") != strings.Count(rows[0], "|") {
		t.Fatalf("want a head, a rule as wide and 2 rows, got:\n%s", got)
	}
	if want := "| rest | 64 | 1 | 4 | 100ms:1m0s | 6.1 | 1292.9 | 4035 | 79 | 194 | 0 | 71.1 | 1.96 | 30.5 | 1.23 | 3.5 | 12.5 | 61 | 0/0/0/0/0 |"; rows[2] != want {
		t.Errorf("row = %s\nwant  %s", rows[2], want)
	}
	if want := "| rest | 64 | 1 | 64 | — | 1.0 | 1.0 | 2 | — | — | — | — | — | — | — | — | — | — | —/—/—/—/— |"; rows[3] != want {
		t.Errorf("row = %s\nwant  %s", rows[3], want)
	}
	if _, err := verifyRetriesTable(Block{Attrs: map[string]string{"targets": "nessie"}}, run); !errors.Is(err, ErrNoLines) {
		t.Errorf("no verify line for the targets: err = %v, want ErrNoLines", err)
	}
}
