package analysis

import (
	"errors"
	"strings"
	"testing"
)

func TestVerifyTable(t *testing.T) {
	var run []Line
	for _, s := range []string{
		`{"schema":4,"run_id":"r1","target":"sql","scenario":"verify.commits","threads":16,"ops":31,"ops_sec":11.7,"p50_us":489161,"p99_us":1604321,"params":{"tables":1},` +
			`"measures":{"acked":{"value":31,"unit":"count"},"refused":{"value":69,"unit":"count"},"indeterminate":{"value":0,"unit":"count"},` +
			`"conflicts_per_commit":{"value":3.45,"unit":"ratio"},"retries_per_commit":{"value":0.839,"unit":"ratio"},"failed_after_retries_pct":{"value":69,"unit":"%"},` +
			`"round_trips_per_commit":{"value":8.9,"unit":"ratio"},"lost":{"value":2,"unit":"count"},"duplicated":{"value":0,"unit":"count"},` +
			`"phantom":{"value":0,"unit":"count"},"forked":{"value":3,"unit":"count"},"unreadable":{"value":0,"unit":"count"}}}`,
		// --no-markers: nothing checked, the outcome and anomaly fields absent.
		`{"schema":4,"run_id":"r1","target":"grpc","scenario":"verify.commits","threads":1,"ops":100,"ops_sec":36.8,"p50_us":20922,"p99_us":83362,"params":{"tables":1},` +
			`"measures":{"conflicts_per_commit":{"value":0,"unit":"ratio"}}}`,
		`{"schema":4,"run_id":"r1","target":"grpc","scenario":"other","threads":1,"ops":1,"ops_sec":1,"p50_us":1,"params":{}}`,
	} {
		l, err := ParseLine([]byte(s))
		if err != nil {
			t.Fatalf("ParseLine: %v", err)
		}
		run = append(run, l)
	}
	got, err := verifyTable(Block{Attrs: map[string]string{}}, run)
	if err != nil {
		t.Fatalf("verifyTable: %v", err)
	}
	rows := strings.Split(strings.TrimSpace(got), "\n")
	if len(rows) != 4 {
		t.Fatalf("want a head, a rule and 2 rows, got:\n%s", got)
	}
	if want := "| sql | 16 | 1 | 11.7 | 489.2 | 1604 | 31 | 69 | 0 | 3.45 | 0.84 | 69.0 | 8.9 | 2/0/0/3/0 |"; rows[2] != want {
		t.Errorf("row = %s\nwant  %s", rows[2], want)
	}
	if want := "| grpc | 1 | 1 | 36.8 | 20.9 | 83 | — | — | — | 0.00 | — | — | — | —/—/—/—/— |"; rows[3] != want {
		t.Errorf("row = %s\nwant  %s", rows[3], want)
	}
	if _, err := verifyTable(Block{Attrs: map[string]string{"targets": "nessie"}}, run); !errors.Is(err, ErrNoLines) {
		t.Errorf("no verify line for the targets: err = %v, want ErrNoLines", err)
	}

	// A kill run: the kills and the indeterminate commits found present and absent.
	kill, err := ParseLine([]byte(`{"schema":4,"run_id":"r2","target":"rest","scenario":"verify.commits","threads":16,"ops":329,"ops_sec":5.5,"p50_us":1000,"p99_us":9000,` +
		`"params":{"tables":1,"kill_every":"2s","kill_seed":3,"kills":25},"measures":{"acked":{"value":329,"unit":"count"},"indeterminate":{"value":350,"unit":"count"},` +
		`"indeterminate_present":{"value":1,"unit":"count"},"indeterminate_absent":{"value":349,"unit":"count"},"lost":{"value":0,"unit":"count"}}}`))
	if err != nil {
		t.Fatalf("ParseLine: %v", err)
	}
	got, err = verifyTable(Block{Attrs: map[string]string{}}, []Line{kill})
	if err != nil {
		t.Fatalf("verifyTable: %v", err)
	}
	rows = strings.Split(strings.TrimSpace(got), "\n")
	if !strings.Contains(rows[0], "| kills | indet. present/absent |") || strings.Count(rows[1], "|") != strings.Count(rows[0], "|") {
		t.Errorf("head without the kill columns or a rule of another width:\n%s", got)
	}
	if want := "| rest | 16 | 1 | 5.5 | 1.0 | 9 | 329 | — | 350 | — | — | — | — | 25 | 1/349 | 0/—/—/—/— |"; rows[2] != want {
		t.Errorf("row = %s\nwant  %s", rows[2], want)
	}
}
