package analysis

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
	folded, blocks, err := FoldReadme([]byte(readmeText), h, "history.jsonl")
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
	again, _, err := FoldReadme(folded, h, "history.jsonl")
	if err != nil || string(again) != got {
		t.Fatalf("folding twice changed the README (err %v)", err)
	}
	if err := CheckReadme(folded, h, "history.jsonl"); err != nil {
		t.Fatalf("fresh README reported stale: %v", err)
	}
	edited := strings.Replace(got, "| load_table.latency p50 µs | 0.", "| load_table.latency p50 µs | 1.", 1)
	if err := CheckReadme([]byte(edited), h, "history.jsonl"); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "stale: fronts (") {
		t.Fatalf("hand-edited number: %v", err)
	}
}

func TestFoldReadmeBadMarkers(t *testing.T) {
	h := readmeHistory(t)
	cases := []struct {
		name, text string
		want       error
	}{
		{"no run", "<!-- katbench:table x targets=a -->\n<!-- /katbench:table -->\n", ErrBadMarker},
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
			_, _, err := FoldReadme([]byte(tc.text), h, "h")
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
	h := readmeHistory(f)
	f.Fuzz(func(t *testing.T, text string) {
		out, _, err := FoldReadme([]byte(text), h, "h")
		if err != nil {
			return
		}
		again, _, err := FoldReadme(out, h, "h")
		if err != nil || string(again) != string(out) {
			t.Fatalf("folding is not stable: %v", err)
		}
	})
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
