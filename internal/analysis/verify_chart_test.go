package analysis

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReportVerifyCharts: verify lines get the two contention charts, one
// series per target with a point per writer level (the writers, which
// differ per cell in params, do not split a series), and a cell that
// acknowledged nothing (no conflicts_per_commit) has no point rather than
// a 0; lines of other scenarios get no such chart.
func TestReportVerifyCharts(t *testing.T) {
	verifyLine := func(target string, w int, conflicts string, failed float64) []byte {
		m := fmt.Sprintf(`"failed_after_retries_pct":{"value":%g,"unit":"%%"}`, failed)
		if conflicts != "" {
			m += `,"conflicts_per_commit":{"value":` + conflicts + `,"unit":"ratio"}`
		}
		return []byte(fmt.Sprintf(`{"schema":4,"ts":"2026-12-04T05:50:00Z","run_id":"r1","target":%q,"scenario":"verify.commits","threads":%d,"dims":{"threads":%d},`+
			`"ops":100,"ops_sec":10,"p50_us":1000,"p99_us":9000,"params":{"tables":1,"writers":%d},"measures":{%s},"host":{"hostname":"vm"},"commit":{}}`, target, w, w, w, m))
	}
	var raw [][]byte
	for _, tg := range []string{"embedded", "sql"} {
		for i, w := range []int{1, 16, 64} {
			c := fmt.Sprint(float64(i) * 2.5)
			if tg == "sql" && w == 64 {
				c = "" // acknowledged nothing
			}
			raw = append(raw, verifyLine(tg, w, c, float64(i)*30))
		}
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, parse(t, raw...), ReportOptions{Now: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, `href="#verify"`) {
		t.Error("the contents do not link the verify charts")
	}
	for _, c := range []struct {
		title    string
		embedded int // points of each series
		sql      int
	}{
		{"verify: conflicts per commit against writers", 3, 2},
		{"verify: failed after retries against writers", 3, 3},
	} {
		i := strings.Index(page, "<title>"+c.title+"</title>")
		if i < 0 {
			t.Fatalf("no chart %q", c.title)
		}
		svg := page[i : i+strings.Index(page[i:], "</svg>")]
		names := regexp.MustCompile(`class="series" data-name="([^"]*)"`).FindAllStringSubmatch(svg, -1)
		if len(names) != 2 || names[0][1] != "embedded · K=1" || names[1][1] != "sql · K=1" {
			t.Fatalf("%s: series %v, want embedded · K=1 and sql · K=1", c.title, names)
		}
		for _, tick := range []string{">1<", ">16<", ">64<"} {
			if !strings.Contains(svg, tick) {
				t.Errorf("%s: no writers tick %s", c.title, tick)
			}
		}
		got := seriesPoints(t, svg)
		if got["embedded · K=1"] != c.embedded || got["sql · K=1"] != c.sql {
			t.Errorf("%s: points %v, want embedded %d, sql %d", c.title, got, c.embedded, c.sql)
		}
	}

	buf.Reset()
	if err := WriteReport(&buf, reportFixture(t), ReportOptions{Now: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "against writers") {
		t.Error("a report without verify lines has a verify chart")
	}
}

// seriesPoints counts the points of each series polyline of an SVG chart.
func seriesPoints(t *testing.T, svg string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range regexp.MustCompile(`class="series" data-name="([^"]*)"[^>]* points="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		out[m[1]] = len(strings.Fields(m[2]))
	}
	return out
}

// TestVerifyChartsSplitByBudget: a run with several retry budgets draws a
// series per budget; one budget adds nothing to the names.
func TestVerifyChartsSplitByBudget(t *testing.T) {
	line := func(w, r int) []byte {
		return []byte(fmt.Sprintf(`{"schema":4,"ts":"2026-12-04T05:50:00Z","run_id":"r1","target":"rest","scenario":"verify.commits","threads":%d,"dims":{"threads":%d},`+
			`"ops":100,"ops_sec":10,"p50_us":1000,"p99_us":9000,"params":{"tables":1,"commit_retries":%d,"commit_backoff":"100ms:1m0s"},`+
			`"measures":{"failed_after_retries_pct":{"value":1,"unit":"%%"},"conflicts_per_commit":{"value":2,"unit":"ratio"}},"host":{"hostname":"vm"},"commit":{}}`, w, w, r))
	}
	names := func(ls []Line) []string {
		var out []string
		for _, f := range verifyCharts(ls, false) {
			for _, n := range regexp.MustCompile(`rest · K=1[^<"]*`).FindAllString(string(f.Chart), -1) {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
		return out
	}
	two := parse(t, line(16, 4), line(64, 4), line(16, 16), line(64, 16))
	if got := names(two); !slices.Contains(got, "rest · K=1 · R=4") || !slices.Contains(got, "rest · K=1 · R=16") {
		t.Errorf("two budgets: series %q", got)
	}
	one := parse(t, line(16, 4), line(64, 4))
	if got := names(one); !slices.Equal(got, []string{"rest · K=1"}) {
		t.Errorf("one budget: series %q", got)
	}
}
