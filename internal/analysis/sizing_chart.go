package analysis

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"

	"github.com/nordisk/katbench/internal/results"
)

// sizingCost is one cost a growth sweep's line carries, drawn against
// the catalog's size.
type sizingCost struct {
	name, unit string
	value      func(Line) (float64, bool)
	// server: a cost of the server as a whole (memory, disk), drawn once
	// per sweep from one scenario's lines rather than per scenario.
	server bool
}

var sizingCosts = []sizingCost{
	{name: "p50", unit: "µs", value: func(l Line) (float64, bool) { return deref(l.P50US) }},
	{name: "p99", unit: "µs", value: func(l Line) (float64, bool) { return deref(l.P99US) }},
	{name: "server CPU per operation", unit: "µs", value: func(l Line) (float64, bool) {
		if l.Server == nil {
			return 0, false
		}
		return deref(l.Server.CPUUSPerOp)
	}},
	{name: "wire bytes per operation", unit: "B", value: func(l Line) (float64, bool) { return deref(l.WireBytesPerOp) }},
	{name: "server RSS after the cell", unit: "MiB", server: true, value: func(l Line) (float64, bool) {
		if l.Server == nil || l.Server.RSSAfterBytes == nil {
			return 0, false
		}
		return float64(*l.Server.RSSAfterBytes) / (1 << 20), true
	}},
	{name: "store bytes on disk", unit: "MiB", server: true, value: func(l Line) (float64, bool) {
		if l.Server == nil || l.Server.StoreBytes == nil {
			return 0, false
		}
		return float64(*l.Server.StoreBytes) / (1 << 20), true
	}},
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// sizingSeriesKey is one target of one run (and one scenario).
type sizingSeriesKey struct{ run, target, scenario string }

// sizingCharts draws the growth sweeps among lines (those with
// dims.tables): per scenario, each cost against the tables on log–log
// axes, one series per target with its fitted growth exponent (and 95 %
// interval) in the legend; the server's memory and disk once per sweep,
// from its load_table lines where it has them (else its first
// scenario's). A cost no line carries is left out.
func sizingCharts(lines []Line, multiRun bool) []familyView {
	var scens []string
	var keys []sizingSeriesKey
	by := map[sizingSeriesKey][]Line{}
	for _, l := range lines {
		if _, ok := l.Dims[results.DimTables]; !ok || !l.Measured() {
			continue
		}
		k := sizingSeriesKey{l.RunID, l.Target, l.Scenario}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
			if !slices.Contains(scens, l.Scenario) {
				scens = append(scens, l.Scenario)
			}
		}
		by[k] = append(by[k], l)
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(scens)
	colour := map[[2]string]string{} // one colour per run and target, in every chart
	for _, k := range keys {
		id := [2]string{k.run, k.target}
		if _, ok := colour[id]; !ok {
			colour[id] = palette[len(colour)%len(palette)]
		}
	}
	name := func(k sizingSeriesKey) string {
		if multiRun {
			return k.target + " · " + short(k.run)
		}
		return k.target
	}
	var out []familyView
	for _, s := range scens {
		var ks []sizingSeriesKey
		for _, k := range keys {
			if k.scenario == s {
				ks = append(ks, k)
			}
		}
		for _, c := range sizingCosts {
			if c.server {
				continue
			}
			if v, ok := sizingChart(s+": "+c.name+" against tables", c, ks, by, name, colour); ok {
				out = append(out, v)
			}
		}
	}
	// The server's memory and disk: one line per run and target.
	var sk []sizingSeriesKey
	seen := map[[2]string]int{}
	for _, k := range keys {
		id := [2]string{k.run, k.target}
		i, ok := seen[id]
		switch {
		case !ok:
			seen[id] = len(sk)
			sk = append(sk, k)
		case k.scenario == "load_table.latency":
			sk[i] = k
		}
	}
	for _, c := range sizingCosts {
		if !c.server {
			continue
		}
		if v, ok := sizingChart("server: "+c.name+" against tables (after its load_table cell)", c, sk, by, name, colour); ok {
			out = append(out, v)
		}
	}
	return out
}

// sizingChart draws cost c of the series ks; ok is false when no series
// has a point.
func sizingChart(title string, c sizingCost, ks []sizingSeriesKey, by map[sizingSeriesKey][]Line, name func(sizingSeriesKey) string, colour map[[2]string]string) (familyView, bool) {
	ch := chart{Title: title, XLabel: "tables (log)", YLabel: c.name + " " + c.unit + " (log)", LogY: true, Markers: true}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, k := range ks {
		ls := by[k]
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].Dims[results.DimTables] < ls[j].Dims[results.DimTables] })
		var xs, ys []float64
		se := series{Color: colour[[2]string{k.run, k.target}]}
		for _, l := range ls {
			v, ok := c.value(l)
			size := l.Dims[results.DimTables]
			if !ok || v <= 0 || size <= 0 {
				continue
			}
			xs, ys = append(xs, size), append(ys, v)
			x := math.Log10(size)
			se.X, se.Y = append(se.X, x), append(se.Y, v)
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		if len(xs) == 0 {
			continue
		}
		se.Name = name(k) + " · " + exponentLegend(xs, ys)
		ch.Series = append(ch.Series, se)
	}
	if len(ch.Series) == 0 {
		return familyView{}, false
	}
	for d := math.Floor(lo); d <= math.Max(math.Ceil(hi), math.Floor(lo)+1); d++ {
		ch.XTicks = append(ch.XTicks, tick{d, results.CountName(int64(math.Round(math.Pow(10, d))))})
	}
	return familyView{Name: title, Chart: template.HTML(ch.SVG())}, true
}

// exponentLegend is the fitted growth exponent of (xs, ys) for a legend:
// the exponent, and its 95 % interval where it is known.
func exponentLegend(xs, ys []float64) string {
	g, ok := FitGrowth(xs, ys)
	switch {
	case !ok:
		return "one size"
	case math.IsNaN(g.Lo):
		return fmt.Sprintf("%.2f", g.Exponent)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", g.Exponent, g.Lo, g.Hi)
}
