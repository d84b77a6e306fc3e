package results

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteTable prints records side by side: one row per scenario, one column
// group per target in first-seen order, and each target's ratio to the first
// target in the line's headline metric (p50 for latencies, ops/s for
// throughput; the line says which).
func WriteTable(w io.Writer, recs []Record) error {
	var targets, scenarios []string
	seenT, seenS := map[string]bool{}, map[string]bool{}
	cell := map[[2]string]Record{}
	for _, r := range recs {
		if !seenT[r.Target] {
			seenT[r.Target] = true
			targets = append(targets, r.Target)
		}
		if !seenS[r.Scenario] {
			seenS[r.Scenario] = true
			scenarios = append(scenarios, r.Scenario)
		}
		cell[[2]string{r.Target, r.Scenario}] = r
	}
	if len(targets) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"scenario"}
	for i, t := range targets {
		head = append(head, t+" p50 µs", "p99 µs", "p999 µs", "ops/s")
		if i > 0 {
			head = append(head, fmt.Sprintf("%s/%s", t, targets[0]))
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	first := targets[0]
	for _, s := range scenarios {
		row := []string{s}
		base, haveBase := cell[[2]string{first, s}]
		for i, t := range targets {
			r, ok := cell[[2]string{t, s}]
			switch {
			case !ok:
				row = append(row, "—", "", "", "")
			case r.Skipped != "":
				row = append(row, "skipped", "", "", "")
			default:
				mark := ""
				if r.Failed() {
					mark = " !"
				}
				row = append(row, num(r.P50US)+mark, num(r.P99US), num(r.P999US), num(r.OpsSec))
			}
			if i > 0 {
				row = append(row, ratio(base, haveBase, r, ok))
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	for _, r := range recs {
		if r.Skipped != "" {
			fmt.Fprintf(tw, "skipped %s %s: %s\n", r.Target, r.Scenario, oneLine(r.Skipped))
		}
	}
	for _, r := range recs {
		if r.Skipped == "" && r.Failed() {
			allowed := ""
			if r.AllowErrors {
				allowed = " (allowed by --allow-errors)"
			}
			fmt.Fprintf(tw, "! errors %s %s: %d of %d operations failed, %d in the warm-up%s: %s\n",
				r.Target, r.Scenario, r.Errors, r.Errors+r.Ops, r.warmupErrors(), allowed, oneLine(r.FirstError))
		}
	}
	if hasSpread(recs) {
		fmt.Fprintln(tw, "ratios: median of the per-round ratios [min–max]; \"tie\" when the range straddles 1")
	}
	return tw.Flush()
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

func ratio(base Record, haveBase bool, r Record, ok bool) string {
	if !haveBase || !ok {
		return ""
	}
	unit := r.HeadlineMetric().Unit()
	if s, ok := RatioSpread(base, r); ok {
		tie := ""
		if s.Tie {
			tie = " tie"
		}
		return fmt.Sprintf("%s× %s [%s–%s]%s", ratioNum(s.Median), unit, ratioNum(s.Min), ratioNum(s.Max), tie)
	}
	x := Ratio(base, r)
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
