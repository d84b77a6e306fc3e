package results

import (
	"fmt"
	"io"
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
				row = append(row, num(r.P50US), num(r.P99US), num(r.P999US), num(r.OpsSec))
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

func ratio(base Record, haveBase bool, r Record, ok bool) string {
	if !haveBase || !ok {
		return ""
	}
	x := Ratio(base, r)
	if x == 0 {
		return ""
	}
	return fmt.Sprintf("%.3g× %s", x, r.HeadlineMetric().Unit())
}

func num(v float64) string {
	switch {
	case v == 0:
		return "0"
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
