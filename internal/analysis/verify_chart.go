package analysis

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
)

// verifyCurves are the costs of contention a `katbench verify` line
// carries, drawn against its writers: how many conflicts each acknowledged
// commit met, and the share of commits refused once the retries ran out.
var verifyCurves = []struct{ name, measure, unit string }{
	{"conflicts per commit", "conflicts_per_commit", "conflicts"},
	{"failed after retries", "failed_after_retries_pct", "%"},
}

// verifyCharts draws the contention curves of the verify lines among
// lines (scenario verify.commits): each curve against the writers (log2),
// one series per target and tables per writer (K), per retry budget and
// backoff when they vary, and per run when there are several (multiRun),
// so the same target at another K, budget or run is its own line. A cell
// without the measure (nothing acknowledged) is left out, never drawn as
// 0; a chart with fewer than two writer levels is not drawn.
func verifyCharts(lines []Line, multiRun bool) []familyView {
	// Lines with several retry budgets or backoffs (--commit-retries
	// 4,8,…) make one series per budget, not one zigzag.
	varies := map[string]bool{}
	for _, p := range []string{"commit_retries", "commit_backoff"} {
		seen := map[string]bool{}
		for _, l := range lines {
			if v, ok := l.Params[p]; ok && l.Scenario == "verify.commits" {
				seen[fmt.Sprint(v)] = true
			}
		}
		varies[p] = len(seen) > 1
	}
	var order []string
	by := map[string][]Line{}
	for _, l := range lines {
		if l.Scenario != "verify.commits" || !l.Measured() || l.Threads <= 0 {
			continue
		}
		name := l.Target
		if multiRun {
			name += " · " + short(l.RunID)
		}
		if k, ok := l.Params["tables"]; ok {
			name += fmt.Sprintf(" · K=%v", k)
		}
		if r, ok := l.Params["commit_retries"]; ok && varies["commit_retries"] {
			name += fmt.Sprintf(" · R=%v", r)
		}
		if b, ok := l.Params["commit_backoff"]; ok && varies["commit_backoff"] {
			name += fmt.Sprintf(" · backoff %v", b)
		}
		if _, ok := by[name]; !ok {
			order = append(order, name)
		}
		by[name] = append(by[name], l)
	}
	var out []familyView
	for _, cv := range verifyCurves {
		c := chart{Title: "verify: " + cv.name + " against writers", XLabel: "writers (log2)", YLabel: cv.unit, Markers: true}
		var levels []int
		for _, name := range order {
			ls := slices.Clone(by[name])
			sort.SliceStable(ls, func(i, j int) bool { return ls[i].Threads < ls[j].Threads })
			se := series{Name: name}
			for _, l := range ls {
				v, ok := l.Measures[cv.measure]
				if !ok {
					continue
				}
				se.X = append(se.X, math.Log2(float64(l.Threads)))
				se.Y = append(se.Y, v.Value)
				if !slices.Contains(levels, l.Threads) {
					levels = append(levels, l.Threads)
				}
			}
			if len(se.X) > 0 {
				c.Series = append(c.Series, se)
			}
		}
		if len(levels) < 2 {
			continue
		}
		sort.Ints(levels)
		for _, w := range levels {
			c.XTicks = append(c.XTicks, tick{math.Log2(float64(w)), fmt.Sprint(w)})
		}
		out = append(out, familyView{Name: cv.name, Chart: template.HTML(c.SVG())})
	}
	return out
}
