package analysis

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// reportFixture is one run of two transports (per-round samples, so ratios
// have a spread) and one run of two catalogs over three thread levels.
func reportFixture(t *testing.T) []Line {
	t.Helper()
	var raw [][]byte
	ft := newFixture("7ea0000000000001", "vm", 11)
	raw = append(raw, ft.line(t, "http", "s3.get.4KiB.c1", 300), ft.line(t, "uring", "s3.get.4KiB.c1", 250))
	fc := newFixture("ca70000000000002", "vm", 12)
	fc.rounds = 0
	for _, th := range []int{1, 2, 8} {
		for _, tg := range []string{"embedded", "rest"} {
			b := fc.line(t, tg, "load_table.throughput.t"+strconv.Itoa(th), map[string]float64{"embedded": 1, "rest": 100}[tg])
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			m["threads"] = th
			m["dims"] = map[string]int{"threads": th}
			m["ops_sec"] = float64(th) * map[string]float64{"embedded": 1e6, "rest": 1e4}[tg]
			b, _ = json.Marshal(m)
			raw = append(raw, b)
		}
	}
	raw = append(raw, []byte(`{"ts":"2026-12-01T00:00:00Z","run_id":"ca70000000000002","target":"rest","scenario":"resolve_metadata.latency","skipped":"no resolver <b>here</b>","params":{},"host":{"hostname":"vm"},"commit":{}}`))
	return parse(t, raw...)
}

func TestReportStructure(t *testing.T) {
	var buf bytes.Buffer
	err := WriteReport(&buf, reportFixture(t), ReportOptions{Title: "fixture <report>", Sources: []string{"fixture.jsonl"}, Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// Self-contained: no script, no external reference of any kind.
	for _, bad := range []string{"<script", "<link", "src=", "href=\"http", "url(", "@import", "http://", "https://"} {
		if strings.Contains(page, bad) {
			t.Fatalf("report references something outside itself: %q", bad)
		}
	}
	// Escaped: the title and the skipped reason are text, not markup.
	if strings.Contains(page, "<report>") || strings.Contains(page, "<b>here</b>") {
		t.Fatal("unescaped input in the page")
	}
	mustCount := func(re string, want int) {
		t.Helper()
		if got := len(regexp.MustCompile(re).FindAllString(page, -1)); got != want {
			t.Fatalf("%d × %s, want %d", got, re, want)
		}
	}
	// One spectrum per scenario with a histogram (4 scenarios), one
	// throughput chart (the family over threads 1, 2, 8).
	mustCount(`<svg class="chart"`, 5)
	mustCount(`<h3>load_table.throughput</h3>`, 1)
	mustCount(`data-name="http · 7ea00000"`, 1)
	mustCount(`data-name="uring · 7ea00000"`, 1)
	// Both runs with host and commit, and a command column saying it is absent.
	// (each run appears in the runs table and above its ratio table)
	mustCount(`<code>7ea0000000000001</code>`, 2)
	mustCount(`<code>ca70000000000002</code>`, 2)
	mustCount(`not recorded in these lines`, 2)
	// The transport A/B ratio has a spread from 10 rounds; the catalog run's
	// ratios say they have none.
	if !regexp.MustCompile(`s3\.get\.4KiB\.c1</td><td class="l">uring</td><td>0\.8\d*× \[[0-9.]+–[0-9.]+\] n=10`).MatchString(page) {
		t.Fatal("transport ratio with spread missing")
	}
	if !strings.Contains(page, "n=1, no spread") {
		t.Fatal("ratio without rounds does not say so")
	}
	if !strings.Contains(page, "skipped rest · ca700000: no resolver &lt;b&gt;here&lt;/b&gt;") {
		t.Fatal("skipped line not shown")
	}
	// Every polyline has points inside the plot area.
	for _, m := range regexp.MustCompile(`points="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if strings.TrimSpace(m[1]) == "" {
			t.Fatal("empty series")
		}
	}
}

// TestReportSeriesAreTargets: a two-target catalog run whose lines carry
// their own target's params (store, URL) and per-level params that differ
// at every level (commit_tables, conflict counts) draws one series per
// target in every throughput chart, pairs the targets' cells in the ratio
// section and chart, and sums them up in the headline; a commit the binary
// did not carry is said in words.
func TestReportSeriesAreTargets(t *testing.T) {
	fc := newFixture("ca70000000000003", "vm", 13)
	fc.run.Commit = results.Commit{SHA: "unknown"}
	fc.metric = results.OpsSec
	var raw [][]byte
	for _, fam := range []string{"commit_table.throughput", "commit_table.contended"} {
		for _, th := range []int{1, 4, 16} {
			for _, tg := range []string{"embedded", "rest"} {
				b := fc.line(t, tg, fam+".t"+strconv.Itoa(th), map[string]float64{"embedded": 100, "rest": 200}[tg])
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				m["threads"] = th
				m["dims"] = map[string]int{"threads": th}
				p := m["params"].(map[string]any)
				p["commit_tables"] = th
				p["contended_conflicts"] = th*7 + len(tg)
				p["store"] = map[string]string{"embedded": "bbolt", "rest": "bbolt behind REST"}[tg]
				if tg == "rest" {
					p["url"] = "http://127.0.0.1:8181"
				}
				b, _ = json.Marshal(m)
				raw = append(raw, b)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, parse(t, raw...), ReportOptions{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, fam := range []string{"commit_table.throughput", "commit_table.contended"} {
		i := strings.Index(page, "<title>"+fam+": throughput by threads</title>")
		if i < 0 {
			t.Fatalf("no throughput chart for %s", fam)
		}
		chart := page[i : i+strings.Index(page[i:], "</svg>")]
		got := regexp.MustCompile(`class="series" data-name="([^"]*)"`).FindAllStringSubmatch(chart, -1)
		if len(got) != 2 || got[0][1] != "embedded" || got[1][1] != "rest" {
			t.Errorf("%s: series %v, want exactly embedded and rest", fam, got)
		}
	}
	// Six paired cells: rest's speed is half embedded's (200 µs vs 100 µs
	// per op, ops/s the headline), with a spread from 10 rounds.
	rows := regexp.MustCompile(`<td class="l">commit_table\.[a-z]+\.t\d+</td><td class="l">rest</td>.*?<td>(0\.[45]\d*)× \[`).FindAllStringSubmatch(page, -1)
	if len(rows) != 6 {
		t.Fatalf("%d ratio rows with rest at about half embedded's speed, want 6", len(rows))
	}
	if n := strings.Count(page, `<circle class="ratio"`); n != 6 {
		t.Errorf("ratio chart draws %d cells, want 6", n)
	}
	if !regexp.MustCompile(`<td class="l">embedded</td><td class="l">rest</td><td>6</td><td>0</td><td>6</td><td>0</td><td>0\.[45]\d*×</td>`).MatchString(page) {
		t.Error("summary row (6 cells, rest worse in all, geometric mean about 0.5×) missing")
	}
	if strings.Contains(page, "unknown (clean)") || !strings.Contains(page, "not recorded (built without version control information)") {
		t.Error("a commit the binary did not carry is not said in words")
	}
	for _, id := range []string{`href="#summary"`, `href="#ratios"`, `href="#throughput"`, `href="#f0"`, `id="f0"`} {
		if !strings.Contains(page, id) {
			t.Errorf("table of contents: no %s", id)
		}
	}
}
