package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func readmeHistory(t testing.TB) []Line {
	t.Helper()
	f := newFixture("feed000000000001", "vm", 3)
	f.control = ptr(25)
	ft := newFixture("7a7a000000000002", "vm", 4)
	return parse(t,
		f.line(t, "embedded", "load_table.latency", 0.5), f.line(t, "rest", "load_table.latency", 100),
		f.line(t, "embedded", "table_exists.latency", 0.2), f.line(t, "rest", "table_exists.latency", 40),
		ft.line(t, "http", "s3.head.c1", 300), ft.line(t, "uring", "s3.head.c1", 250))
}

const readmeText = `# Title

Hand-written prose stays.

<!-- katbench:table fronts run=feed targets=embedded,rest rows=load_table.latency:p50,table_exists.latency:p99 ratios=rest/embedded control=true cmd="katbench run embedded rest" -->
| stale | table |
<!-- /katbench:table -->

Between.

<!-- katbench:table ab run=7a7a layout=ab a=http b=uring rows=s3.head.c1 -->
<!-- /katbench:table -->
The end.
`

func TestFoldReadme(t *testing.T) {
	h := readmeHistory(t)
	folded, blocks, err := FoldReadme([]byte(readmeText), Sources{History: h, HistoryName: "history.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	got := string(folded)
	if len(blocks) != 2 || blocks[0].Name != "fronts" || blocks[1].Name != "ab" {
		t.Fatalf("blocks %+v", blocks)
	}
	for _, want := range []string{
		"# Title\n\nHand-written prose stays.\n", "\nBetween.\n", "The end.\n",
		"from run `feed000000000001` in `history.jsonl`: command `katbench run embedded rest` (as given in the marker",
		"host vm (2 cores, Test CPU, linux 6.1, go1.26)", "commit `c0ffeefeed00` (clean tree)",
		"| scenario | embedded | rest | rest / embedded |",
		"| load_table.latency p50 µs | 0.", "× control) |", "command not recorded;",
		"| table_exists.latency p99 µs |",
		"| cell | p50 µs http → uring | uring/http ops/s | uring/http p99 |",
		"| s3.head.c1 | 29", "n=10",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("folded README lacks %q:\n%s", want, got)
		}
	}
	// With per-round samples the ratio is the median of the per-round
	// ratios with their range; rest (100 µs) over embedded (0.5 µs) is
	// about 200× in every round, so no tie.
	ratio := regexp.MustCompile(`\| load_table\.latency p50 µs \| [^|]+ \| [^|]+ \| (\d+)× \[(\d+)–(\d+)\] \|`).FindStringSubmatch(got)
	if ratio == nil {
		t.Fatalf("load_table ratio cell has no per-round range:\n%s", got)
	}
	if lo, med, hi := atoi(t, ratio[2]), atoi(t, ratio[1]), atoi(t, ratio[3]); lo > med || med > hi || lo < 150 || hi > 250 {
		t.Fatalf("ratio %s [%s–%s]: want about 200 with lo ≤ median ≤ hi", ratio[1], ratio[2], ratio[3])
	}
	if strings.Contains(got, "| stale | table |") {
		t.Fatal("old table body kept")
	}
	again, _, err := FoldReadme(folded, Sources{History: h, HistoryName: "history.jsonl"})
	if err != nil || string(again) != got {
		t.Fatalf("folding twice changed the README (err %v)", err)
	}
	if err := CheckReadme(folded, Sources{History: h, HistoryName: "history.jsonl"}); err != nil {
		t.Fatalf("fresh README reported stale: %v", err)
	}
	edited := strings.Replace(got, "| load_table.latency p50 µs | 0.", "| load_table.latency p50 µs | 1.", 1)
	if err := CheckReadme([]byte(edited), Sources{History: h, HistoryName: "history.jsonl"}); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "stale: fronts (") {
		t.Fatalf("hand-edited number: %v", err)
	}
}

func TestFoldReadmeBadMarkers(t *testing.T) {
	h := readmeHistory(t)
	cases := []struct {
		name, text string
		want       error
	}{
		{"no run labelled x", "<!-- katbench:table x targets=a -->\n<!-- /katbench:table -->\n", ErrNoLines},
		{"run and label", "<!-- katbench:table x run=feed label=y -->\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"two blocks, one name", "<!-- katbench:table x run=feed -->\n<!-- /katbench:table -->\n<!-- katbench:table x run=feed -->\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"unknown section", "<!-- katbench:generated nope -->\n<!-- /katbench:generated -->\n", ErrBadMarker},
		{"section with attributes", "<!-- katbench:generated list run=feed -->\n<!-- /katbench:generated -->\n", ErrBadMarker},
		{"section closed as a table", "<!-- katbench:generated list -->\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"unknown attribute", "<!-- katbench:table x run=feed colour=red -->\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"no name", "<!-- katbench:table run=feed -->\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"unclosed", "<!-- katbench:table x run=feed -->\ntext\n", ErrBadMarker},
		{"end without start", "text\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"unclosed quote", "<!-- katbench:table x run=feed cmd=\"a b -->\n<!-- /katbench:table -->\n", ErrBadMarker},
		{"unknown run", "<!-- katbench:table x run=0000 -->\n<!-- /katbench:table -->\n", ErrNoLines},
		{"unknown target", "<!-- katbench:table x run=feed targets=nessie -->\n<!-- /katbench:table -->\n", ErrNoLines},
		{"unknown scenario", "<!-- katbench:table x run=feed rows=nope.latency -->\n<!-- /katbench:table -->\n", ErrNoLines},
		{"bad metric", "<!-- katbench:table x run=feed rows=load_table.latency:p42 -->\n<!-- /katbench:table -->\n", ErrUnknownMetric},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := FoldReadme([]byte(tc.text), Sources{History: h, HistoryName: "h"})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// FuzzFoldReadme: any README text folds or fails with an error, never a
// panic, and a README that folds folds the same way again.
func FuzzFoldReadme(f *testing.F) {
	f.Add(readmeText)
	f.Add("<!-- katbench:table x run=feed cmd=\"a -->\n<!-- /katbench:table -->\n")
	f.Add("<!-- katbench:table -->")
	f.Add("<!-- katbench:generated list -->\nold\n<!-- /katbench:generated -->\n<!-- katbench:table fronts -->\n<!-- /katbench:table -->\n")
	h := readmeHistory(f)
	src := Sources{History: h, HistoryName: "h", Labels: map[string]string{"fronts": "feed"}, Sections: map[string]string{"list": "| a |\n"}}
	f.Fuzz(func(t *testing.T, text string) {
		out, _, err := FoldReadme([]byte(text), src)
		if err != nil {
			return
		}
		again, _, err := FoldReadme(out, src)
		if err != nil || string(again) != string(out) {
			t.Fatalf("folding is not stable: %v", err)
		}
	})
}

// TestFoldReadmeByLabel: a table named NAME shows the newest run labelled
// NAME, whether the label is on its lines or in the label file; label=
// lets two tables show one run; generated sections come from Sources.
func TestFoldReadmeByLabel(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	mk := func(id string, label string, at time.Duration, us float64) []byte {
		f := newFixture(id, "vm", uint64(at))
		f.label, f.ts = label, t0.Add(at)
		return f.line(t, "rest", "load_table.latency", us)
	}
	h := parse(t,
		mk("01d0000000000001", "", 0, 100),                    // unlabelled; named in the label file
		mk("1abe000000000002", "fronts", time.Hour, 200),      // labelled
		mk("1abe000000000003", "fronts", 2*time.Hour, 300),    // labelled, newer: shown
		mk("1abe000000000004", "other", 3*time.Hour, 400),     // another label
		mk("1abe000000000005", "fronts", 90*time.Minute, 500)) // labelled, older than 0003 though later in the file
	src := Sources{History: h, HistoryName: "h.jsonl", LabelsName: "labels.tsv",
		Labels:   map[string]string{"old": "01d0", "fronts": "01d0"},
		Sections: map[string]string{"list": "| a | b |\n"}}
	text := "<!-- katbench:table fronts rows=load_table.latency:p50 -->\n<!-- /katbench:table -->\n" +
		"<!-- katbench:table old rows=load_table.latency:p50 -->\n<!-- /katbench:table -->\n" +
		"<!-- katbench:table again label=fronts rows=load_table.latency:p50 -->\n<!-- /katbench:table -->\n" +
		"<!-- katbench:generated list -->\nstale\n<!-- /katbench:generated -->\n"
	out, blocks, err := FoldReadme([]byte(text), src)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if len(blocks) != 4 || !blocks[3].Section {
		t.Fatalf("blocks %+v", blocks)
	}
	for _, want := range []string{
		"from run `1abe000000000003` (label `fronts`) in `h.jsonl`",
		"from run `01d0000000000001` (label `old` in `labels.tsv`)",
		"<!-- katbench:table again label=fronts rows=load_table.latency:p50 -->\n_Generated by `katbench readme` from run `1abe000000000003`",
		"<!-- katbench:generated list -->\n| a | b |\n<!-- /katbench:generated -->",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("folded text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "stale") || strings.Contains(got, "1abe000000000005") || strings.Contains(got, "1abe000000000002") {
		t.Fatalf("an older run or the old section body is shown:\n%s", got)
	}
	if err := CheckReadme(out, src); err != nil {
		t.Fatalf("fresh text reported stale: %v", err)
	}
	src.Sections = map[string]string{"list": "| a | c |\n"}
	if err := CheckReadme(out, src); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "stale: list") {
		t.Fatalf("changed section: %v", err)
	}
	// A label file naming a run that is not in the history is an error.
	src.Labels = map[string]string{"old": "dead"}
	if _, _, err := FoldReadme([]byte(text), src); !errors.Is(err, ErrNoLines) || !strings.Contains(err.Error(), "labels.tsv") {
		t.Fatalf("unknown mapped run: %v", err)
	}
}

func TestReadLabels(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "labels.tsv")
	if m, err := ReadLabels(p); err != nil || len(m) != 0 {
		t.Fatalf("missing file: %v %v", m, err)
	}
	os.WriteFile(p, []byte("# label\trun\n\npeers\tab2cc68313c751d5\nfronts  d01abec351ac87d3\n"), 0o644)
	m, err := ReadLabels(p)
	if err != nil || len(m) != 2 || m["peers"] != "ab2cc68313c751d5" || m["fronts"] != "d01abec351ac87d3" {
		t.Fatalf("labels %v, %v", m, err)
	}
	for _, bad := range []string{"peers\n", "peers a b\n", "peers a\npeers b\n"} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := ReadLabels(p); !errors.Is(err, ErrBadMarker) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFoldReadmeABCPU: layout=ab with cpu=yes adds B/A CPU per operation
// with its per-round spread, and floor=TARGET the floor's CPU over A's;
// a run without the floor's lines is an error naming it, not a blank.
func TestFoldReadmeABCPU(t *testing.T) {
	f := newFixture("cafe000000000003", "vm", 5)
	f.cpuUS = map[string]float64{"http": 100, "uring": 70, "floor": 55}
	h := parse(t, f.line(t, "http", "s3.head.c64", 300), f.line(t, "uring", "s3.head.c64", 250), f.line(t, "floor", "s3.head.c64", 20))
	text := "<!-- katbench:table x run=cafe layout=ab a=http b=uring floor=floor rows=s3.head.c64 -->\n<!-- /katbench:table -->\n"
	out, _, err := FoldReadme([]byte(text), Sources{History: h, HistoryName: "h"})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if !strings.Contains(got, "| uring/http CPU/op | floor/http CPU/op: the lowest uring/http could be | uring/http CPU/op above floor's |") {
		t.Fatalf("no CPU columns:\n%s", got)
	}
	m := regexp.MustCompile(`\| s3\.head\.c64 \|[^|]+\|[^|]+\|[^|]+\| ([0-9.]+)× \[[^]]+\] n=10 \| ([0-9.]+)× \[[^]]+\] n=10 \| ([0-9.]+)× \[[^]]+\] n=10 \|`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("CPU cells missing or without spread:\n%s", got)
	}
	// uring 70 over http 100, floor 55 over 100, (70−55)/(100−55) = 1/3.
	if u, fl, above := atof(t, m[1]), atof(t, m[2]), atof(t, m[3]); u < 0.66 || u > 0.74 || fl < 0.51 || fl > 0.59 || above < 0.28 || above > 0.39 {
		t.Fatalf("uring/http CPU %v, floor/http %v, above the floor %v; want about 0.70, 0.55 and 0.33", u, fl, above)
	}
	noFloor := parse(t, f.line(t, "http", "s3.head.c64", 300), f.line(t, "uring", "s3.head.c64", 250))
	if _, _, err := FoldReadme([]byte(text), Sources{History: noFloor, HistoryName: "h"}); !errors.Is(err, ErrNoLines) || !strings.Contains(err.Error(), "floor") {
		t.Fatalf("run without floor lines: %v, want ErrNoLines naming floor", err)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
