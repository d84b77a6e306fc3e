package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// The sizing tables (layout=sizing in a katbench:table marker) read a
// growth sweep (`katbench run … --tables 1k,10k,100k,1M`): for each
// target and scenario, the cost at each size and its fitted growth
// exponent with a 95 % interval (p50, p99, the server's CPU per
// operation); then, per target, what a deployment needs — cores and MiB
// per 1,000 load_table/s at the largest size, and the memory and disk
// 100k more tables take (the least-squares slope of the server's RSS after
// the load_table cell, and of its store's bytes, over the sizes).
//
//	<!-- katbench:table sizing label=sizing layout=sizing -->
//
// rows=deploy shows the second table alone; rows=limits the size at which
// each target's load and list p99 first exceed 100 ms (limitRows);
// rows=readme both in one table per target (the README's).

// sizingPoint is one line of a sweep.
type sizingPoint struct {
	size float64
	l    Line
}

// sizingTable renders the sizing tables of run.
func sizingTable(b Block, run []Line, info RunInfo) (string, error) {
	type key = sizingKey
	pts := map[key][]sizingPoint{}
	var keys []key
	for _, l := range run {
		size, ok := l.Dims[results.DimTables]
		if !ok || !l.Measured() {
			continue
		}
		k := key{l.Target, l.Scenario}
		if _, seen := pts[k]; !seen {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], sizingPoint{size, l})
	}
	if len(keys) == 0 {
		return "", fmt.Errorf("%w: run %s has no line of a growth sweep (dims.tables)", ErrNoLines, info.ID)
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].scenario < keys[j].scenario })
	switch b.Attrs["rows"] {
	case "limits":
		return limitRows(info.Targets, run, nil), nil
	case "readme":
		return limitRows(info.Targets, run, pts), nil
	}
	var sb strings.Builder
	if b.Attrs["rows"] != "deploy" {
		sb.WriteString(growthRows(keys, pts))
	}
	sb.WriteString(deployRows(info.Targets, pts))
	return sb.String(), nil
}

// sizingKey is one (target, scenario) of a sweep.
type sizingKey struct{ target, scenario string }

// growthRows is the table of each cost by size with its exponent.
func growthRows(keys []sizingKey, pts map[sizingKey][]sizingPoint) string {
	var sb strings.Builder
	sb.WriteString("| target | scenario | p50 by size | p50 exponent | p99 exponent | server CPU µs/op by size | CPU exponent |\n|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		p := pts[k]
		sort.Slice(p, func(i, j int) bool { return p[i].size < p[j].size })
		var x50, y50, x99, y99, xc, yc []float64
		var p50s, cpus []string
		for _, pt := range p {
			if len(pt.l.Rounds) > 1 {
				for _, r := range pt.l.Rounds {
					if r.P50US != nil {
						x50, y50 = append(x50, pt.size), append(y50, *r.P50US)
					}
				}
			} else if pt.l.P50US != nil {
				x50, y50 = append(x50, pt.size), append(y50, *pt.l.P50US)
			}
			if pt.l.P99US != nil {
				x99, y99 = append(x99, pt.size), append(y99, *pt.l.P99US)
			}
			p50s = append(p50s, fmt.Sprintf("%s: %s", results.CountName(int64(pt.size)), fmtOptMicros(pt.l.P50US)))
			cpu := "—"
			if s := pt.l.Server; s != nil && s.CPUUSPerOp != nil {
				xc, yc = append(xc, pt.size), append(yc, *s.CPUUSPerOp)
				cpu = fmt.Sprintf("%.0f", *s.CPUUSPerOp)
			}
			cpus = append(cpus, results.CountName(int64(pt.size))+": "+cpu)
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s |\n", k.target, k.scenario, strings.Join(p50s, ", "),
			growthText(x50, y50), growthText(x99, y99), strings.Join(cpus, ", "), growthText(xc, yc))
	}
	sb.WriteString("\nExponent: the slope of log cost on log tables (0 = flat, 1 = linear), with its 95 % interval where there are more points than sizes' worth of a line (rounds, or three sizes or more).\n\n")
	return sb.String()
}

// deployRows is the table of what a deployment needs, per target.
func deployRows(targets []string, pts map[sizingKey][]sizingPoint) string {
	var sb strings.Builder
	sb.WriteString("| target | per 1,000 load_table/s: cores | server RSS MiB while serving them | per 100k tables: MiB memory | MiB disk |\n|---|---|---|---|---|\n")
	for _, t := range targets {
		if d, ok := deployOf(t, pts); ok {
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", t, d.cores, d.rss, d.mem, d.disk)
		}
	}
	sb.WriteString("\n" + deployNote + "\n")
	return sb.String()
}

const deployNote = "Cores: the server's CPU (its store's included) per load_table at the largest size × 1,000. Memory and disk per 100k tables: the least-squares slope of the server's RSS after the load_table cell and of its store's bytes against the tables that existed, over the sizes (a JVM's heap grows in steps, so its slope is rough)."

// deployment is what a deployment of one target needs, as table cells
// (— where the run did not measure it).
type deployment struct{ cores, rss, mem, disk string }

// deployOf reads target t's deployment from its load_table cells; false
// when it has none.
func deployOf(t string, pts map[sizingKey][]sizingPoint) (deployment, bool) {
	p := pts[sizingKey{t, "load_table.latency"}]
	if len(p) == 0 {
		return deployment{}, false
	}
	sort.Slice(p, func(i, j int) bool { return p[i].size < p[j].size })
	last := p[len(p)-1].l
	d := deployment{"—", "—", "—", "—"}
	if s := last.Server; s != nil && s.CPUUSPerOp != nil {
		d.cores = fmt.Sprintf("%.2f", *s.CPUUSPerOp*1000/1e6)
	}
	if s := last.Server; s != nil && s.RSSPeakBytes != nil {
		d.rss = fmt.Sprintf("%.0f", float64(*s.RSSPeakBytes)/(1<<20))
	}
	var xs, rssY, diskX, diskY []float64
	for _, pt := range p {
		tables, _ := pt.l.Params["tables"].(float64)
		if s := pt.l.Server; s != nil && tables > 0 {
			if s.RSSAfterBytes != nil {
				xs, rssY = append(xs, tables), append(rssY, float64(*s.RSSAfterBytes))
			}
			if s.StoreBytes != nil {
				diskX, diskY = append(diskX, tables), append(diskY, float64(*s.StoreBytes))
			}
		}
	}
	if v, ok := Slope(xs, rssY); ok {
		d.mem = fmt.Sprintf("%.1f", v*1e5/(1<<20))
	}
	if v, ok := Slope(diskX, diskY); ok {
		d.disk = fmt.Sprintf("%.1f", v*1e5/(1<<20))
	}
	return d, true
}

// growthText writes a fitted exponent and its interval.
func growthText(x, y []float64) string {
	g, ok := FitGrowth(x, y)
	if !ok {
		return "—"
	}
	if math.IsNaN(g.Lo) {
		return fmt.Sprintf("%.2f (2 sizes: no interval)", g.Exponent)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", g.Exponent, g.Lo, g.Hi)
}

// fmtOptMicros prints a p50 of the sizing table: under 10 µs with two
// significant digits (an in-process catalog answers in 0.3 µs, which
// fmtMicros would print as 0, read as unmeasured), else as fmtMicros; nil
// (not measured) as —.
func fmtOptMicros(v *float64) string {
	switch {
	case v == nil:
		return "—"
	case *v < 10 && !math.IsNaN(*v):
		return fmt.Sprintf("%.2g µs", *v)
	}
	return fmtMicros(*v)
}

func init() {
	RegisterLayout(Layout{Name: "sizing", Doc: "a sizing sweep: every cost at each catalog size", Attrs: []string{"rows"},
		Render: func(b Block, run []Line, info RunInfo, _ Sources) (string, error) { return sizingTable(b, run, info) }})
}
