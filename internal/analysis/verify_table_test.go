package analysis

import (
	"errors"
	"fmt"
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

func TestVerifySummarySumsEveryRunPerTarget(t *testing.T) {
	line := func(run, ts, target string, w int, lost, failPct float64, kills any) string {
		params := `{"tables":1}`
		if kills != nil {
			params = fmt.Sprintf(`{"tables":1,"kills":%v}`, kills)
		}
		return fmt.Sprintf(`{"ts":%q,"run_id":%q,"target":%q,"scenario":"verify.commits","ops":10,"threads":%d,"params":%s,"measures":{"acked":{"value":10,"unit":"count"},"lost":{"value":%g,"unit":"count"},"duplicated":{"value":0,"unit":"count"},"phantom":{"value":0,"unit":"count"},"forked":{"value":0,"unit":"count"},"unreadable":{"value":0,"unit":"count"},"failed_after_retries_pct":{"value":%g,"unit":"%%"}},"host":{"hostname":"vm"},"commit":{}}`,
			ts, run, target, w, params, lost, failPct)
	}
	lines := parse(t,
		[]byte(line("a000000000000001", "2026-12-01T00:00:00Z", "rest", 16, 0, 10, nil)),
		[]byte(line("a000000000000001", "2026-12-01T00:00:01Z", "rest", 64, 0, 60, nil)),
		[]byte(line("a000000000000001", "2026-12-01T00:00:02Z", "nessie", 16, 3, 20, nil)),
		// a later run: rest crashed, nessie not in it
		[]byte(line("b000000000000002", "2026-12-02T00:00:00Z", "rest", 16, 0, 5, 7)),
	)
	out, err := verifySummaryTable(Block{}, lines)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| rest | 3 | 7 times | 0/0/0/0/0 | 10.0 | 60.0 |", // the 16-writer cell without kills
		"| nessie | 1 | — | **3/0/0/0/0** | 20.0 | — |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if _, err := verifySummaryTable(Block{}, nil); err == nil {
		t.Error("no lines: no error")
	}
}
