package analysis

import (
	"errors"
	"strings"
	"testing"
)

func TestWorkersTable(t *testing.T) {
	var history []Line
	for _, s := range []string{
		// Three cluster runs with the label, newest last, and one without it.
		`{"schema":4,"ts":"2026-12-04T08:00:00Z","run_id":"run-three-aaaa","label":"k8s-workers","merged_from":["w1","w2","w3"],"skew_start_ms":39.1,"skew_end_ms":6.4,"target":"rest","scenario":"load_table.throughput.t1","threads":1,"ops":7000,"ops_sec":2333.3,"p50_us":427,"p99_us":11248,"params":{}}`,
		`{"schema":4,"ts":"2026-12-04T07:58:00Z","run_id":"run-one","label":"k8s-workers","target":"rest","scenario":"load_table.throughput.t1","threads":1,"ops":4800,"ops_sec":1600,"p50_us":379,"p99_us":4805,"params":{}}`,
		`{"schema":4,"ts":"2026-12-04T07:59:00Z","run_id":"run-two","label":"k8s-workers","merged_from":["w1","w2"],"skew_start_ms":22.9,"target":"rest","scenario":"load_table.throughput.t1","threads":1,"ops":6000,"ops_sec":2000,"p50_us":453,"p99_us":5095,"params":{}}`,
		`{"schema":4,"ts":"2026-12-04T08:01:00Z","run_id":"other","label":"else","target":"rest","scenario":"load_table.throughput.t1","threads":1,"ops":1,"ops_sec":1,"p50_us":1,"params":{}}`,
	} {
		l, err := ParseLine([]byte(s))
		if err != nil {
			t.Fatalf("ParseLine: %v", err)
		}
		history = append(history, l)
	}
	doc := "x\n<!-- katbench:table k8s-workers layout=workers -->\n<!-- /katbench:table -->\n"
	out, _, err := FoldReadme([]byte(doc), Sources{History: history, HistoryName: "h.jsonl"})
	if err != nil {
		t.Fatalf("FoldReadme: %v", err)
	}
	got := string(out)
	if !strings.Contains(got, "from the 3 runs labelled `k8s-workers` in `h.jsonl`") {
		t.Errorf("provenance does not name the 3 runs:\n%s", got)
	}
	var rows []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| workers") {
			rows = append(rows, l)
		}
	}
	want := []string{
		"| 1 | rest | load_table.throughput.t1 | 1600 | 379 | 4805 | — | `run-one` |",
		"| 2 | rest | load_table.throughput.t1 | 2000 | 453 | 5095 | 22.9 / — | `run-two` |",
		"| 3 | rest | load_table.throughput.t1 | 2333 | 427 | 11248 | 39.1 / 6.4 | `run-three-aaaa` |",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if _, _, err := FoldReadme([]byte(strings.ReplaceAll(doc, "k8s-workers", "none")), Sources{History: history}); !errors.Is(err, ErrNoLines) {
		t.Errorf("no labelled line: err = %v, want ErrNoLines", err)
	}
}
