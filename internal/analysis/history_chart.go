package analysis

import (
	"github.com/nordisk/katbench/internal/results"
	"html/template"
	"math"
)

// historyCharts draws, per scenario of the lines that carry a history
// level, its headline against the number of snapshots, log–log, one
// series per target (and snapshots mode, and run when there are several).
// Level 0 is drawn at 1 snapshot, the axis' first decade, labelled "0–1".
func historyCharts(lines []Line, multiRun bool) []familyView {
	order, by := depthSeries(lines)
	var scens []string
	perScen := map[string][]depthKey{}
	for _, k := range order {
		if _, ok := perScen[k.scenario]; !ok {
			scens = append(scens, k.scenario)
		}
		perScen[k.scenario] = append(perScen[k.scenario], k)
	}
	var out []familyView
	for _, s := range scens {
		keys := perScen[s]
		ylabel := "p50 µs (log)"
		if by[keys[0]][0].line.Metric == results.OpsSec {
			ylabel = "ops/s (log)"
		}
		c := chart{Title: s + ": against history depth", XLabel: "snapshots (log)", YLabel: ylabel, LogY: true, Markers: true}
		hi := 0.0
		for _, k := range keys {
			name := k.target
			if k.mode != "" {
				name += " · snapshots=" + k.mode
			}
			if multiRun {
				name += " · " + short(k.run)
			}
			if s, ok := depthSlope(by[k]); ok {
				name += " · ×" + FormatNum(math.Pow(10, s)) + "/10×"
			}
			se := series{Name: name}
			for _, p := range by[k] {
				v, _ := depthValue(p.line)
				x := math.Log10(math.Max(p.snapshots, 1))
				se.X, se.Y = append(se.X, x), append(se.Y, v)
				hi = math.Max(hi, x)
			}
			c.Series = append(c.Series, se)
		}
		top := math.Max(math.Ceil(hi), 1)
		for d := 0.0; d <= top; d++ {
			label := FormatNum(math.Pow(10, d))
			if d == 0 {
				label = "0–1"
			}
			c.XTicks = append(c.XTicks, tick{d, label})
		}
		out = append(out, familyView{Name: s, Chart: template.HTML(c.SVG())})
	}
	return out
}
