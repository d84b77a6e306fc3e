package analysis

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// testdata/capacity.jsonl is the output of
// katbench capacity embedded rest --quick --durability none --mix read-heavy
// --slo 'p99<=50ms,commit_table:p99<=200ms' --start-rate 200 --max-rate 3200
// --step-duration 200ms --step-ops 0 --warmup 50ms --tables 20.
func TestReportDrawsCapacityCurves(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := parse(t, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	var buf bytes.Buffer
	if err := WriteReport(&buf, lines, ReportOptions{Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	i := strings.Index(page, `id="capacity"`)
	if i < 0 {
		t.Fatal("no capacity section")
	}
	section := page[i:]
	if j := strings.Index(section, `<h2 id="spectra"`); j >= 0 {
		section = section[:j]
	}
	if j := strings.Index(section, `<h2 id="ratios"`); j >= 0 {
		section = section[:j]
	}
	// One chart per objective, each with both targets and the bound.
	if n := strings.Count(section, "<svg"); n != 2 {
		t.Fatalf("%d capacity charts, want one per latency objective (2)", n)
	}
	for _, want := range []string{`data-name="objective p99 ≤ `, `data-name="objective commit_table:p99 ≤ `, `data-name="embedded · max `, `data-name="rest · max `} {
		if !strings.Contains(section, want) {
			t.Fatalf("capacity section lacks %s", want)
		}
	}
	// Each target's curve has a point per step that measured the
	// objective's percentile.
	for _, l := range lines {
		steps, ok := capacitySteps(l)
		if !ok {
			t.Fatalf("%s: no steps", l.Target)
		}
		re := regexp.MustCompile(`data-name="` + regexp.QuoteMeta(l.Target) + ` · max [^"]*"[^>]*points="([^"]*)"`)
		m := re.FindStringSubmatch(section)
		if m == nil {
			t.Fatalf("%s: no curve", l.Target)
		}
		if got := len(strings.Fields(m[1])); got != len(steps) {
			t.Fatalf("%s: %d points for %d steps", l.Target, got, len(steps))
		}
	}
}
