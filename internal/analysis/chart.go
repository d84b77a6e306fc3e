package analysis

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// palette colours series in order; chosen to stay apart for common colour
// blindness and on white.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// series is one line of a chart, in data coordinates.
type series struct {
	Name string
	X, Y []float64
	// Color, when set, is the series' colour instead of the palette's
	// next (to keep one target's colour across charts).
	Color string
}

// tick is an axis mark at a data coordinate.
type tick struct {
	At    float64
	Label string
}

// chart is a small line chart rendered to inline SVG: no script, no
// external reference, so the report opens offline.
type chart struct {
	Title          string
	XLabel, YLabel string
	XTicks         []tick // fixed x ticks; the x range spans them
	LogY           bool   // log10 y axis with decade ticks; otherwise linear from 0
	Series         []series
	Markers        bool // draw a dot on each point (for few points)
}

const (
	chartW, chartH         = 900, 300
	padL, padR, padT, padB = 70, 276, 28, 44
	plotW                  = chartW - padL - padR
	plotH                  = chartH - padT - padB
)

// SVG renders the chart.
func (c chart) SVG() string {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, t := range c.XTicks {
		xmin, xmax = math.Min(xmin, t.At), math.Max(xmax, t.At)
	}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i, y := range s.Y {
			if c.LogY && y <= 0 {
				continue
			}
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title>`, chartW, chartH, chartW, chartH, esc(c.Title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>`, chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`, padL, esc(c.Title))
	if math.IsInf(ymin, 0) || math.IsInf(xmin, 0) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12">no data</text></svg>`, padL, chartH/2)
		return b.String()
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	var yTicks []tick
	ty := func(y float64) float64 { return y }
	if c.LogY {
		lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if hi == lo {
			hi = lo + 1
		}
		ymin, ymax = lo, hi
		ty = func(y float64) float64 { return math.Log10(y) }
		for d := lo; d <= hi; d++ {
			yTicks = append(yTicks, tick{d, FormatNum(math.Pow(10, d))})
		}
	} else {
		ymin = 0
		step := niceStep(ymax / 5)
		ymax = math.Ceil(ymax/step) * step
		for v := 0.0; v <= ymax+step/2; v += step {
			yTicks = append(yTicks, tick{v, FormatNum(v)})
		}
	}
	px := func(x float64) float64 { return padL + (x-xmin)/(xmax-xmin)*plotW }
	py := func(y float64) float64 { return padT + plotH - (y-ymin)/(ymax-ymin)*plotH }
	for _, t := range yTicks {
		y := py(t.At)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, padL, padL+plotW, y, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`, padL-4, y+4, esc(t.Label))
	}
	for _, t := range c.XTicks {
		x := px(t.At)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ddd"/>`, x, x, padT, padT+plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`, x, padT+plotH+14, esc(t.Label))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`, padL, padT, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle">%s</text>`, padL+plotW/2, chartH-6, esc(c.XLabel))
	fmt.Fprintf(&b, `<text x="14" y="%d" font-size="11" text-anchor="middle" transform="rotate(-90 14 %d)">%s</text>`, padT+plotH/2, padT+plotH/2, esc(c.YLabel))
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		if s.Color != "" {
			col = s.Color
		}
		var pts []string
		for j, y := range s.Y {
			if c.LogY && y <= 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[j]), py(ty(y))))
		}
		// Past the palette, series repeat colours with a dash pattern.
		dash := ""
		if i >= len(palette) {
			dash = ` stroke-dasharray="6 3"`
		}
		fmt.Fprintf(&b, `<polyline class="series" data-name="%s" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`, esc(s.Name), col, dash, strings.Join(pts, " "))
		if c.Markers {
			for _, p := range pts {
				xy := strings.SplitN(p, ",", 2)
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`, xy[0], xy[1], col)
			}
		}
		// Legend, right of the plot.
		lx, ly := padL+plotW+8, padT+10+14*i
		name := s.Name
		if r := []rune(name); len(r) > 44 {
			name = string(r[:43]) + "…"
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`, lx, lx+16, ly-4, ly-4, col, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`, lx+20, ly, esc(name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// niceStep rounds a raw step up to 1, 2 or 5 × 10^n.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func esc(s string) string { return html.EscapeString(s) }

// ninesTicks are the x ticks of a percentile spectrum up to maxNines.
func ninesTicks(maxNines float64) []tick {
	labels := []string{"p0", "p90", "p99", "p99.9", "p99.99", "p99.999", "p99.9999"}
	ts := []tick{{0, labels[0]}, {math.Log10(2), "p50"}}
	for n := 1; n < len(labels) && float64(n) <= math.Ceil(maxNines); n++ {
		ts = append(ts, tick{float64(n), labels[n]})
	}
	return ts
}

// ratioChartSVG draws a run's speed ratios, one row per compared cell: a
// dot at B's speed as a multiple of A's, a whisker over the per-round
// range, on a log2 axis centred on 1× (right of it B is better). Rows
// without a number are left out.
func ratioChartSVG(rv ratioRunView) string {
	var rows []ratioRow
	lo, hi := 1.0, 1.0
	for _, r := range rv.Rows {
		if r.ok && r.speed > 0 && r.lo > 0 {
			rows = append(rows, r)
			lo, hi = math.Min(lo, r.lo), math.Max(hi, r.hi)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	// A symmetric log2 range of whole powers, at most 2^-8..2^8 (beyond
	// that a dot sits on the edge, its number in the table).
	span := math.Min(math.Max(math.Ceil(math.Max(-math.Log2(lo), math.Log2(hi))), 1), 8)
	const labelW, rowH, top, width, rightPad = 330, 16, 40, 900, 20
	plot := float64(width - labelW - rightPad)
	height := top + rowH*len(rows) + 30
	px := func(v float64) float64 {
		l := math.Max(-span, math.Min(span, math.Log2(v)))
		return labelW + (l+span)/(2*span)*plot
	}
	var b strings.Builder
	title := fmt.Sprintf("run %s: speed × %s's (headline metric; right of 1× is better)", short(rv.RunID), rv.Base)
	fmt.Fprintf(&b, `<svg class="chart ratio" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title>`, width, height, width, height, esc(title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>`, width, height)
	fmt.Fprintf(&b, `<text x="8" y="18" font-size="13" font-weight="bold">%s</text>`, esc(title))
	bottom := top + rowH*len(rows)
	for e := -span; e <= span; e++ {
		x := px(math.Pow(2, e))
		stroke := "#ddd"
		if e == 0 {
			stroke = "#444"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s"/>`, x, x, top-6, bottom, stroke)
		if span > 4 && int(e)%2 != 0 {
			continue // every other label, so wide ranges stay legible
		}
		label := FormatNum(math.Pow(2, e)) + "×"
		if e < 0 {
			label = "1/" + FormatNum(math.Pow(2, -e)) + "×"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`, x, bottom+14, esc(label))
	}
	colour := map[string]string{}
	for i, r := range rows {
		c, ok := colour[r.Target]
		if !ok {
			c = palette[len(colour)%len(palette)]
			colour[r.Target] = c
		}
		y := float64(top + rowH*i + rowH/2)
		label := r.Target + "  " + r.Scenario
		if rs := []rune(label); len(rs) > 52 {
			label = string(rs[:51]) + "…"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`, labelW-8, y+4, esc(label))
		if r.hi > r.lo {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`, px(r.lo), px(r.hi), y, y, c)
		}
		fmt.Fprintf(&b, `<circle class="ratio" data-name="%s" cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`,
			esc(r.Target+" "+r.Scenario), px(r.speed), y, c, esc(r.Speed))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
