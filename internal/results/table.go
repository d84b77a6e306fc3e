package results

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// WriteTable prints records side by side: one row per scenario, one column
// group per target in first-seen order, and each later target's speed as
// a multiple of the first target's (see [Speed]), at any width.
func WriteTable(w io.Writer, recs []Record) error { return WriteTableWidth(w, recs, 0) }

// WriteTableWidth is WriteTable fitted to width columns (0: no limit):
// when the target groups do not fit side by side, p999 is left out, and
// then p99, and when they still do not fit the table is printed in blocks of as many
// target groups as fit, each block repeating the scenario column. Skipped
// lines that share a reason are folded into one line with a count.
func WriteTableWidth(w io.Writer, recs []Record, width int) error {
	var targets, scenarios []string
	seenT, seenS := map[string]bool{}, map[string]bool{}
	cell := map[[2]string]Record{}
	for _, r := range recs {
		if !seenT[r.Target] {
			seenT[r.Target] = true
			targets = append(targets, r.Target)
		}
		row := RowName(r)
		if !seenS[row] {
			seenS[row] = true
			scenarios = append(scenarios, row)
		}
		cell[[2]string{r.Target, row}] = r
	}
	if len(targets) == 0 {
		return nil
	}
	first := targets[0]
	// groups[i] are target i's columns: a header and one cell per scenario.
	build := func(p99, p999 bool) [][]column {
		groups := make([][]column, len(targets))
		for i, t := range targets {
			cols := []column{{head: t + " p50 µs"}}
			if p99 {
				cols = append(cols, column{head: "p99 µs"})
			}
			if p999 {
				cols = append(cols, column{head: "p999 µs"})
			}
			cols = append(cols, column{head: "ops/s"})
			if i > 0 {
				cols = append(cols, column{head: "×" + first})
			}
			for _, s := range scenarios {
				r, ok := cell[[2]string{t, s}]
				var vals []string
				switch {
				case !ok:
					vals = []string{"—", "", "", ""}
				case r.Skipped != "":
					vals = []string{"skipped", "", "", ""}
				default:
					mark := ""
					if r.Failed() {
						mark = " !"
					}
					vals = []string{num(r.P50US) + mark, num(r.P99US), num(r.P999US), num(r.OpsSec)}
				}
				keep := []string{vals[0]}
				if p99 {
					keep = append(keep, vals[1])
				}
				if p999 {
					keep = append(keep, vals[2])
				}
				vals = append(keep, vals[3])
				if i > 0 {
					base, haveBase := cell[[2]string{first, s}]
					vals = append(vals, speedCell(base, haveBase, r, ok))
				}
				for c := range cols {
					cols[c].cells = append(cols[c].cells, vals[c])
				}
			}
			groups[i] = cols
		}
		return groups
	}
	scen := column{head: "scenario", left: true, cells: scenarios}
	groups := build(true, true)
	if width > 0 && tableWidth(scen, groups...) > width {
		groups = build(true, false)
	}
	if width > 0 && tableWidth(scen, groups...) > width {
		groups = build(false, false)
	}
	var blocks [][][]column
	if width <= 0 || tableWidth(scen, groups...) <= width {
		blocks = [][][]column{groups}
	} else {
		var cur [][]column
		for _, g := range groups {
			if len(cur) > 0 && tableWidth(scen, append(cur, g)...) > width {
				blocks = append(blocks, cur)
				cur = nil
			}
			cur = append(cur, g)
		}
		blocks = append(blocks, cur)
	}
	var b strings.Builder
	for i, blk := range blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		cols := []column{scen}
		for _, g := range blk {
			cols = append(cols, g...)
		}
		writeColumns(&b, cols)
	}
	notes := &wrapped{b: &b, width: width}
	if len(targets) > 1 {
		fmt.Fprintf(notes, "×%s: each target's speed as a multiple of %s's in the row's headline metric "+
			"(%s's p50 ÷ its p50 on latency rows, its ops/s ÷ %s's on throughput rows): above 1× is faster, below 1× slower\n",
			first, first, first, first)
	}
	writeSkips(notes, recs)
	for _, r := range recs {
		if r.Skipped == "" && r.Failed() {
			allowed := ""
			if r.AllowErrors {
				allowed = " (allowed by --allow-errors)"
			}
			fmt.Fprintf(notes, "! errors %s %s: %d of %d operations failed, %d in the warm-up%s: %s\n",
				r.Target, r.Scenario, r.Errors, r.Errors+r.Ops, r.warmupErrors(), allowed, oneLine(r.FirstError))
		}
	}
	if hasSpread(recs) {
		fmt.Fprintln(notes, "speeds: median of the per-round ratios [min–max]; \"tie\" when the range straddles 1")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// column is one column of the terminal table.
type column struct {
	head  string
	left  bool // left-aligned (the scenario names); numbers align right
	cells []string
}

func (c column) width() int {
	n := utf8.RuneCountInString(c.head)
	for _, s := range c.cells {
		n = max(n, utf8.RuneCountInString(s))
	}
	return n
}

// tableWidth is the printed width of scen and groups' columns, two spaces
// apart.
func tableWidth(scen column, groups ...[]column) int {
	n := scen.width()
	for _, g := range groups {
		for _, c := range g {
			n += 2 + c.width()
		}
	}
	return n
}

func writeColumns(b *strings.Builder, cols []column) {
	ws := make([]int, len(cols))
	for i, c := range cols {
		ws[i] = c.width()
	}
	row := func(get func(c column) string) {
		var line strings.Builder
		for i, c := range cols {
			if i > 0 {
				line.WriteString("  ")
			}
			v := get(c)
			pad := strings.Repeat(" ", ws[i]-utf8.RuneCountInString(v))
			if c.left {
				line.WriteString(v + pad)
			} else {
				line.WriteString(pad + v)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	row(func(c column) string { return c.head })
	for r := range cols[0].cells {
		row(func(c column) string { return c.cells[r] })
	}
}

// writeSkips prints the skipped lines: one line for a lone skip, one line
// per shared reason with a count and who was skipped otherwise.
func writeSkips(b io.Writer, recs []Record) {
	var reasons []string
	by := map[string][]Record{}
	for _, r := range recs {
		if r.Skipped == "" {
			continue
		}
		why := oneLine(r.Skipped)
		if _, ok := by[why]; !ok {
			reasons = append(reasons, why)
		}
		by[why] = append(by[why], r)
	}
	for _, why := range reasons {
		rs := by[why]
		if len(rs) == 1 {
			fmt.Fprintf(b, "skipped %s %s: %s\n", rs[0].Target, rs[0].Scenario, why)
			continue
		}
		var order []string
		n := map[string]int{}
		for _, r := range rs {
			if n[r.Target] == 0 {
				order = append(order, r.Target)
			}
			n[r.Target]++
		}
		var who []string
		for _, t := range order {
			who = append(who, fmt.Sprintf("%s %d", t, n[t]))
		}
		fmt.Fprintf(b, "skipped %d lines (%s; first %s): %s\n", len(rs), strings.Join(who, ", "), rs[0].Scenario, why)
	}
}

// wrapped writes notes word-wrapped to width (0: as they are), each
// continuation indented by two spaces. Every Write is one note ending in
// a newline.
type wrapped struct {
	b     *strings.Builder
	width int
}

func (w *wrapped) Write(p []byte) (int, error) {
	text := strings.TrimRight(string(p), "\n")
	if w.width <= 0 {
		w.b.WriteString(text + "\n")
		return len(p), nil
	}
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > w.width:
			w.b.WriteString(line + "\n")
			line = "  " + word
		default:
			line += " " + word
		}
	}
	w.b.WriteString(line + "\n")
	return len(p), nil
}

// Speed is r's speed as a multiple of base's in r's headline metric: the
// ops/s ratio r/base for throughput, the p50 ratio base/r for latency, so
// that above 1 r is faster whatever the metric. 0 when either side has no
// number.
func Speed(base, r Record) float64 {
	x := Ratio(base, r)
	if x == 0 || r.HeadlineMetric() == OpsSec {
		return x
	}
	return 1 / x
}

// Ratio is what the table shows in a target's ratio column: r's headline
// metric over base's (for ops/s higher is better, for p50 lower is better;
// Record.Better says which). It returns 0 when either side has no number.
func Ratio(base, r Record) float64 {
	m := r.HeadlineMetric()
	b, okB := m.Value(base)
	v, okR := m.Value(r)
	if !okB || !okR || b == 0 {
		return 0
	}
	return v / b
}

// Spread is the per-round view of a ratio between two lines measured in
// the same interleaved rounds: the median of the paired per-round ratios of
// the headline metric and their minimum and maximum, over N rounds where
// both sides measured something. Tie is true when the range straddles 1.
type Spread struct {
	Median, Min, Max float64
	N                int
	Tie              bool
}

// RatioSpread pairs r's and base's per-round samples of r's headline
// metric. ok is false when fewer than two rounds have both.
func RatioSpread(base, r Record) (s Spread, ok bool) {
	return MetricSpread(r.HeadlineMetric(), base, r)
}

// MetricSpread is RatioSpread for metric m (p50 or ops/s).
func MetricSpread(m Metric, base, r Record) (s Spread, ok bool) {
	if base.Skipped != "" || r.Skipped != "" {
		return s, false
	}
	bs, rs := base.RoundP50US, r.RoundP50US
	if m == OpsSec {
		bs, rs = base.RoundOpsSec, r.RoundOpsSec
	}
	return RoundSpread(bs, rs)
}

// RoundSpread is the spread of the per-round ratios rs[i]/bs[i] over the
// rounds where both are measured (positive, not NaN); ok is false with
// fewer than two.
func RoundSpread(bs, rs []float64) (s Spread, ok bool) {
	var ratios []float64
	for i := range min(len(bs), len(rs)) {
		if b, v := bs[i], rs[i]; b > 0 && v > 0 && !math.IsNaN(b) && !math.IsNaN(v) {
			ratios = append(ratios, v/b)
		}
	}
	if len(ratios) < 2 {
		return s, false
	}
	sort.Float64s(ratios)
	n := len(ratios)
	s = Spread{Min: ratios[0], Max: ratios[n-1], N: n, Median: ratios[n/2]}
	if n%2 == 0 {
		s.Median = (ratios[n/2-1] + ratios[n/2]) / 2
	}
	s.Tie = s.Min <= 1 && s.Max >= 1
	return s, true
}

// String is "1.23× [1.10–1.40]", with " tie" when the range straddles 1.
func (s Spread) String() string {
	out := fmt.Sprintf("%s× [%s–%s]", ratioNum(s.Median), ratioNum(s.Min), ratioNum(s.Max))
	if s.Tie {
		out += " tie"
	}
	return out
}

func hasSpread(recs []Record) bool {
	for _, r := range recs {
		if len(r.RoundP50US) > 1 || len(r.RoundOpsSec) > 1 {
			return true
		}
	}
	return false
}

// speedCell is the table's speed column: "1.23× p50", with the per-round
// median and range "1.23× p50 [1.10–1.40]" (and " tie") when both lines
// carry rounds; the unit names the headline metric the speed came from.
func speedCell(base Record, haveBase bool, r Record, ok bool) string {
	if !haveBase || !ok {
		return ""
	}
	unit := r.HeadlineMetric().Unit()
	if s, ok := RatioSpread(base, r); ok {
		med, lo, hi := s.Median, s.Min, s.Max
		if r.HeadlineMetric() != OpsSec {
			med, lo, hi = 1/med, 1/hi, 1/lo
		}
		tie := ""
		if s.Tie {
			tie = " tie"
		}
		return fmt.Sprintf("%s× %s [%s–%s]%s", ratioNum(med), unit, ratioNum(lo), ratioNum(hi), tie)
	}
	x := Speed(base, r)
	if x == 0 {
		return ""
	}
	return fmt.Sprintf("%s× %s", ratioNum(x), unit)
}

// ratioNum prints a ratio with three significant digits, without an
// exponent.
func ratioNum(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

func num(v float64) string {
	switch {
	case v == 0:
		return "—" // not measured (a measured time is never 0)
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	case v < 1000:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
