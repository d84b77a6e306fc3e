package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// The writes-runs table (layout=writes-runs) shows every run recorded with
// one label, one row per run in the order they started: for each scenario
// the catalog (catalog=, default embedded) and the floor (floor=, default
// fs-floor) both measured, narrowed by scenarios=GLOB,… (default
// create_table.throughput.t32), the catalog ÷ floor ops/s (the median of
// the run's per-round ratios, or the run's ratio when it has no rounds)
// and the catalog's p99 as a multiple of the floor's. Its last row is the
// median of each column over the runs, with their range: a goal stated
// for one run of a command is seen against the spread of that command's
// runs on the same machine.
//
//	<!-- katbench:table t32-runs label=writes-commit-log-main layout=writes-runs catalog=embedded-log -->
//
// A run without a scenario, or without a value on either side, shows "—"
// there and is left out of that column's median (an unmeasured value is
// absent, never 0).

// writesRunsTable renders the writes-runs table of lines, the lines of
// every run with the block's label.
func writesRunsTable(b Block, lines []Line) (string, error) {
	catalog, floor := attrOr(b, "catalog", "embedded"), attrOr(b, "floor", "fs-floor")
	globs := strings.Split(attrOr(b, "scenarios", "create_table.throughput.t32"), ",")
	byRun := cellsByRun(lines, func(l Line) bool {
		return matchAny(globs, l.Scenario) && (l.Target == catalog || l.Target == floor)
	})
	var scens []string
	for _, l := range lines {
		if l.Target == catalog && matchAny(globs, l.Scenario) && !slices.Contains(scens, l.Scenario) {
			scens = append(scens, l.Scenario)
		}
	}
	var runs []RunInfo
	for _, ri := range Runs(lines) {
		if byRun[ri.ID] != nil {
			runs = append(runs, ri)
		}
	}
	if len(scens) == 0 || len(runs) == 0 {
		return "", fmt.Errorf("%w: no %s line matches %s", ErrNoLines, catalog, strings.Join(globs, ","))
	}
	sortByStart(runs)

	var sb strings.Builder
	fmt.Fprintf(&sb, "%s ÷ %s, one row per run: ops/s as the median of the run's per-round ratios, and p99.\n\n", catalog, floor)
	sb.WriteString("| run | started (UTC) | commit |")
	for _, s := range scens {
		fmt.Fprintf(&sb, " %s ops/s | %s p99 |", s, s)
	}
	sb.WriteString("\n|---|---|---|" + strings.Repeat("---|---|", len(scens)) + "\n")
	samples := make([][]float64, 2*len(scens))
	for _, ri := range runs {
		commit := commitCode(ri.First, "")
		fmt.Fprintf(&sb, "| `%s` | %s | %s |", ri.ID, ri.First.TS.UTC().Format("2006-01-02 15:04"), commit)
		for i, s := range scens {
			c, okC := byRun[ri.ID][[2]string{catalog, s}]
			f, okF := byRun[ri.ID][[2]string{floor, s}]
			measured := okC && okF && c.Skipped == "" && f.Skipped == ""
			for j, v := range []func(c, f Line) (float64, bool){opsRatio, p99Ratio} {
				r, ok := v(c, f)
				if !measured || !ok {
					sb.WriteString(" — |")
					continue
				}
				samples[2*i+j] = append(samples[2*i+j], r)
				sb.WriteString(" " + results.FormatRatio(r) + " |")
			}
		}
		sb.WriteString("\n")
	}
	sb.WriteString("| median (min–max) | | |")
	for _, s := range samples {
		if len(s) == 0 {
			sb.WriteString(" — |")
			continue
		}
		fmt.Fprintf(&sb, " %s (%s) |", results.FormatRatio(median(s)), ratioRange(slices.Min(s), slices.Max(s)))
	}
	sb.WriteString("\n")
	return sb.String(), nil
}

// cellsByRun maps each run's id to its kept lines by (target, scenario).
func cellsByRun(lines []Line, keep func(Line) bool) map[string]map[[2]string]Line {
	byRun := map[string]map[[2]string]Line{}
	for _, l := range lines {
		if !keep(l) {
			continue
		}
		if byRun[l.RunID] == nil {
			byRun[l.RunID] = map[[2]string]Line{}
		}
		byRun[l.RunID][[2]string{l.Target, l.Scenario}] = l
	}
	return byRun
}

// opsRatio is c's ops/s over f's: the median of the per-round ratios when
// both were measured in the same rounds, else the ratio of the totals.
func opsRatio(c, f Line) (float64, bool) {
	if rr, ok := roundRatios(OpsSec, f, c); ok {
		return rr.median, true
	}
	return metricRatio(OpsSec, c, f)
}

// p99Ratio is c's p99 over f's.
func p99Ratio(c, f Line) (float64, bool) { return metricRatio(P99, c, f) }

// metricRatio is m of c over m of f; false when either is unmeasured or
// f's is 0.
func metricRatio(m Metric, c, f Line) (float64, bool) {
	vc, okC := m.Value(c)
	vf, okF := m.Value(f)
	if !okC || !okF || vf == 0 {
		return 0, false
	}
	return vc / vf, true
}

func init() {
	RegisterLayout(Layout{Name: "writes-runs", Doc: "every run with the label, one row each: the catalog ÷ the floor's ops/s and p99 per scenario", Attrs: []string{"catalog", "floor", "scenarios"}, Runs: EveryRun,
		Render: func(b Block, lines []Line, _ RunInfo, _ Sources) (string, error) { return writesRunsTable(b, lines) }})
}
