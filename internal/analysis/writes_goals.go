package analysis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// The writes-goals table (layout=writes-goals) holds goals stated for one
// run of a command against every run of it: label=A,B,… names the runs
// (every run of each label), goals=… the goals, one row each, with the
// value in each run, their median and range, how many runs meet the goal,
// a 95 % interval of the median, and a verdict from those.
//
//	<!-- katbench:table t32-goals label=runs-a,runs-b layout=writes-goals catalog=embedded-log
//	     goals=create_table.throughput.t32:ops_sec>=0.9,create_table.throughput.t8/create_table.throughput.t1:ops_sec>=3 -->
//
// A goal is SCENARIO:METRIC>=X or <=X: the catalog's (catalog=, default
// embedded) METRIC in SCENARIO ÷ the floor's (floor=, default fs-floor)
// in the same run; or A/B:METRIC>=X: the catalog's METRIC in scenario A ÷
// its METRIC in scenario B of the same run. METRIC is ops_sec (for the
// catalog ÷ the floor, the median of the run's per-round ratios, as in
// layout=writes-runs), p50, p99, p999 or a counter (write_syscall_bytes,
// …). A run missing either side is left out of that goal's row (an
// unmeasured value is absent, never 0).
//
// The interval is distribution-free: the k-th smallest and k-th largest
// of the n runs' values, with k the largest for which the chance that the
// true median lies outside is at most 5 % (each run is as likely to fall
// above the median as below it, so that chance is twice the binomial
// tail of k−1 out of n). Fewer than 6 runs give no such interval.

// writesGoal is one goal of the goals= attribute.
type writesGoal struct {
	text     string // as written, for the table
	scenario string // the catalog's cell (the numerator)
	over     string // the denominator cell of the catalog, or "" for the floor's scenario
	metric   Metric
	atLeast  bool
	bound    float64
}

// parseWritesGoals reads goals=.
func parseWritesGoals(spec string) ([]writesGoal, error) {
	if spec == "" {
		return nil, fmt.Errorf("%w: layout=writes-goals needs goals=SCENARIO:METRIC>=X,…", ErrBadMarker)
	}
	var out []writesGoal
	for _, item := range strings.Split(spec, ",") {
		g := writesGoal{text: item}
		cells, cond, ok := strings.Cut(item, ":")
		op := ">="
		name, bound, okB := strings.Cut(cond, op)
		if !okB {
			op = "<="
			name, bound, okB = strings.Cut(cond, op)
		}
		if !ok || !okB || cells == "" {
			return nil, fmt.Errorf("%w: goal %q: want SCENARIO:METRIC>=X, SCENARIO:METRIC<=X or A/B:METRIC>=X", ErrBadMarker, item)
		}
		g.atLeast = op == ">="
		g.scenario, g.over, _ = strings.Cut(cells, "/")
		if g.scenario == "" || strings.Contains(cells, "/") && g.over == "" {
			return nil, fmt.Errorf("%w: goal %q: a scenario is empty", ErrBadMarker, item)
		}
		var err error
		if g.metric, err = MetricByName(name); err != nil {
			return nil, fmt.Errorf("%w: goal %q: %w", ErrBadMarker, item, err)
		}
		if g.bound, err = strconv.ParseFloat(bound, 64); err != nil || g.bound <= 0 || math.IsInf(g.bound, 0) {
			return nil, fmt.Errorf("%w: goal %q: the bound %q is not a positive number", ErrBadMarker, item, bound)
		}
		out = append(out, g)
	}
	return out, nil
}

// value is g's value in one run's cells (by target and scenario).
func (g writesGoal) value(cells map[[2]string]Line, catalog, floor string) (float64, bool) {
	num, ok := cells[[2]string{catalog, g.scenario}]
	if !ok {
		return 0, false
	}
	if g.over != "" {
		den, ok := cells[[2]string{catalog, g.over}]
		if !ok {
			return 0, false
		}
		return metricRatio(g.metric, num, den)
	}
	den, ok := cells[[2]string{floor, g.scenario}]
	if !ok {
		return 0, false
	}
	if g.metric.Name == OpsSec.Name {
		return opsRatio(num, den)
	}
	return metricRatio(g.metric, num, den)
}

// meets reports whether v meets g.
func (g writesGoal) meets(v float64) bool {
	if g.atLeast {
		return v >= g.bound
	}
	return v <= g.bound
}

// medianInterval returns the distribution-free interval of the median of
// sorted (ascending) values described above, and its coverage; false for
// fewer than 6 values.
func medianInterval(sorted []float64) (lo, hi, coverage float64, ok bool) {
	n := len(sorted)
	k, tail := 0, 0.0
	for j := 0; j < n/2; j++ {
		t := tail + binomHalf(n, j)
		if 2*t > 0.05 {
			break
		}
		k, tail = j+1, t
	}
	if k == 0 {
		return 0, 0, 0, false
	}
	return sorted[k-1], sorted[n-k], 1 - 2*tail, true
}

// binomHalf is the chance of exactly j successes in n fair coin tosses.
func binomHalf(n, j int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(j) - lg(n-j) - float64(n)*math.Ln2)
}

// writesGoalsTable renders the writes-goals table of lines, every run of
// the block's labels.
func writesGoalsTable(b Block, lines []Line) (string, error) {
	catalog, floor := attrOr(b, "catalog", "embedded"), attrOr(b, "floor", "fs-floor")
	goals, err := parseWritesGoals(b.Attrs["goals"])
	if err != nil {
		return "", err
	}
	byRun := cellsByRun(lines, func(l Line) bool {
		return l.Measured() && (l.Target == catalog || l.Target == floor)
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "Each goal over every run: its value in each run (%s ÷ %s in the same run, or %s's ratio between two of its cells), "+
		"their median and range, the runs that meet it, and a 95 %% interval of the median (distribution-free: order statistics of the runs).\n\n", catalog, floor, catalog)
	sb.WriteString("| goal | runs | median | min–max | runs meeting it | median's interval | verdict |\n|---|---|---|---|---|---|---|\n")
	measured := 0
	for _, g := range goals {
		var vs []float64
		for _, cells := range byRun {
			if v, ok := g.value(cells, catalog, floor); ok {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			fmt.Fprintf(&sb, "| `%s` | 0 | — | — | — | — | not measured |\n", g.text)
			continue
		}
		measured++
		slices.Sort(vs)
		met := 0
		for _, v := range vs {
			if g.meets(v) {
				met++
			}
		}
		med := median(vs)
		interval, verdict := "— (under 6 runs)", ""
		lo, hi, cov, okI := medianInterval(vs)
		if okI {
			interval = fmt.Sprintf("%s (%.0f %%)", ratioRange(lo, hi), math.Floor(100*cov))
		}
		switch {
		case met == len(vs):
			verdict = "met in every run"
		case !g.meets(med):
			verdict = "**not met** at the median"
		case okI && g.meets(lo) && g.meets(hi):
			verdict = "met: the median's whole interval meets it; not every run does"
		case okI:
			verdict = "met at the median, not in every run; **the median's interval crosses the bound**"
		default:
			verdict = "met at the median, not in every run; too few runs for an interval"
		}
		fmt.Fprintf(&sb, "| `%s` | %d | %s | %s | %d of %d | %s | %s |\n", g.text, len(vs), results.FormatRatio(med),
			ratioRange(vs[0], vs[len(vs)-1]), met, len(vs), interval, verdict)
	}
	if measured == 0 {
		return "", fmt.Errorf("%w: no run has both sides of any goal (%s ÷ %s)", ErrNoLines, catalog, floor)
	}
	return sb.String(), nil
}

func init() {
	RegisterLayout(Layout{Name: "writes-goals", Doc: "goals stated for one run, against every run of the labels: median, range, runs meeting each, the median's interval, a verdict",
		Attrs: []string{"catalog", "floor", "goals"}, Runs: EveryRun,
		Render: func(b Block, lines []Line, _ RunInfo, _ Sources) (string, error) { return writesGoalsTable(b, lines) }})
}
