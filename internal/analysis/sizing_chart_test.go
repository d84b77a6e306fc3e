package analysis

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sweepLines is a growth sweep at 1k, 10k and 100k tables: rest's p50
// grows linearly with the tables (exponent 1), grpc's stays flat
// (exponent 0); only rest has server cost, and only its load_table line
// carries memory.
func sweepLines(t *testing.T) []Line {
	t.Helper()
	var raw [][]byte
	for _, size := range []float64{1e3, 1e4, 1e5} {
		for _, tg := range []string{"rest", "grpc"} {
			p50 := 100.0
			server := ""
			if tg == "rest" {
				p50 = size / 10
				server = fmt.Sprintf(`,"server":{"cpu_us_per_op":%g,"rss_after_bytes":%d,"source":"proc"}`, size/100, int64(size)*1024)
			}
			raw = append(raw, fmt.Appendf(nil, `{"ts":"2026-12-01T00:00:00Z","run_id":"5123000000000001","target":%q,"scenario":"load_table.latency","ops":100,"p50_us":%g,"dims":{"tables":%g,"threads":1},"params":{"tables":%g},"host":{"hostname":"vm"},"commit":{}%s}`, tg, p50, size, size, server))
		}
	}
	return parse(t, raw...)
}

func TestSizingChartsFitEachTarget(t *testing.T) {
	views := sizingCharts(sweepLines(t), false)
	var names []string
	for _, v := range views {
		names = append(names, v.Name)
	}
	// p50 and server CPU for the scenario, the server's memory once; no
	// chart for the costs no line carries (p99, wire bytes, disk).
	want := []string{
		"load_table.latency: p50 against tables",
		"load_table.latency: server CPU per operation against tables",
		"server: server RSS after the cell against tables (after its load_table cell)",
	}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("charts %q, want %q", names, want)
	}
	p50 := string(views[0].Chart)
	for _, legend := range []string{`data-name="rest · 1.00`, `data-name="grpc · 0.00`} {
		if !strings.Contains(p50, legend) {
			t.Errorf("p50 chart has no series %s:\n%s", legend, p50)
		}
	}
	cpu := string(views[1].Chart)
	if strings.Contains(cpu, `data-name="grpc`) || !strings.Contains(cpu, `data-name="rest · 1.00`) {
		t.Errorf("CPU chart: want rest alone, exponent 1:\n%s", cpu)
	}
	// One colour per target in every chart.
	colour := regexp.MustCompile(`data-name="rest[^"]*" fill="none" stroke="(#[0-9a-f]+)"`)
	var seen []string
	for _, v := range views {
		if m := colour.FindStringSubmatch(string(v.Chart)); m != nil {
			seen = append(seen, m[1])
		}
	}
	if len(seen) != 3 || seen[0] != seen[1] || seen[1] != seen[2] {
		t.Errorf("rest's colours across the charts: %v, want one", seen)
	}
}

func TestReportHasSizingSection(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteReport(&buf, sweepLines(t), ReportOptions{Title: "sweep", Now: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<h2 id="sizing">`) {
		t.Fatal("a growth sweep's report has no sizing section")
	}
	buf.Reset()
	if err := WriteReport(&buf, reportFixture(t), ReportOptions{Title: "no sweep", Now: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `id="sizing"`) {
		t.Fatal("a report without a growth sweep has a sizing section")
	}
}

// TestSizingP50KeepsSubMicrosecond: a p50 under a microsecond is printed
// with its digits, not rounded to 0 µs (which reads as unmeasured); an
// absent one is a dash.
func TestSizingP50KeepsSubMicrosecond(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		v    *float64
		want string
	}{
		{f(0.3), "0.3 µs"},
		{f(0.04), "0.04 µs"},
		{f(1.26), "1.3 µs"},
		{f(9.4), "9.4 µs"},
		{f(292), "292 µs"},
		{f(1770), "1.77 ms"},
		{nil, "—"},
	} {
		if got := fmtOptMicros(c.v); got != c.want {
			t.Errorf("fmtOptMicros(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
