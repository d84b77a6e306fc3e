package analysis

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
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
