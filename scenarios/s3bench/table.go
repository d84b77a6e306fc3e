package s3bench

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/nordisk/katbench/internal/results"
)

// WriteTables prints transport lines for people, per endpoint in
// first-seen order: the side-by-side table (results.WriteTableWidth,
// fitted to width when > 0) and a line per scenario with each transport's
// ratios over baseline — ops/s, p99 and CPU per operation, each header
// saying which way is better — and each side's MiB/s. An empty baseline
// means the first transport the lines name.
func WriteTables(w io.Writer, recs []results.Record, baseline string, width int) error {
	var endpoints []any
	by := map[any][]results.Record{}
	for _, r := range recs {
		ep := r.Params["endpoint"]
		if _, ok := by[ep]; !ok {
			endpoints = append(endpoints, ep)
		}
		by[ep] = append(by[ep], r)
	}
	for _, ep := range endpoints {
		fmt.Fprintf(w, "\nendpoint %v\n", ep)
		if err := results.WriteTableWidth(w, by[ep], width); err != nil {
			return err
		}
		if err := writeRatios(w, by[ep], baseline); err != nil {
			return err
		}
	}
	return nil
}

// writeRatios prints, per scenario and transport other than baseline, the
// ratios over baseline where both have a measured line.
func writeRatios(w io.Writer, recs []results.Record, baseline string) error {
	type key struct{ transport, scenario string }
	cell := map[key]results.Record{}
	var scenarios, transports []string
	seenS, seenT := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if !seenS[r.Scenario] {
			seenS[r.Scenario] = true
			scenarios = append(scenarios, r.Scenario)
		}
		if !seenT[r.Target] {
			seenT[r.Target] = true
			transports = append(transports, r.Target)
		}
		cell[key{r.Target, r.Scenario}] = r
	}
	if baseline == "" && len(transports) > 0 {
		baseline = transports[0]
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := 0
	for _, t := range transports {
		if t == baseline {
			continue
		}
		r := t + "/" + baseline
		header := false
		for _, s := range scenarios {
			h, okH := cell[key{baseline, s}]
			u, okU := cell[key{t, s}]
			if !okH || !okU || h.Skipped != "" || u.Skipped != "" {
				continue
			}
			if !header {
				fmt.Fprintf(tw, "scenario\t%s ops/s (above 1× %s is faster; per-round median [min–max])\t%s p99 (below 1× %s is faster)\t%s CPU/op (below 1× %s is cheaper)\t%s MiB/s\t%s MiB/s\terrors %s/%s\t\n",
					r, t, r, t, r, t, baseline, t, baseline, t)
				header = true
			}
			rows++
			ops := div(u.OpsSec, h.OpsSec)
			if sp, ok := results.MetricSpread(results.OpsSec, h, u); ok {
				ops = sp.String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t\n", s, ops, div(u.P99US, h.P99US), CPURatio(h, u), mib(h), mib(u), h.Errors, u.Errors)
		}
	}
	if rows == 0 {
		return nil
	}
	return tw.Flush()
}

// CPURatio is u's process CPU per operation over h's, as the spread of
// the per-round ratios, or the whole-run ratio when a line lacks its
// rounds ("" when either line lacks the measurement).
func CPURatio(h, u results.Record) string {
	if sp, ok := results.RoundSpread(h.MeasureRounds("cpu_us_per_op"), u.MeasureRounds("cpu_us_per_op")); ok {
		return sp.String()
	}
	hv, okH := h.MeasureValue("cpu_us_per_op")
	uv, okU := u.MeasureValue("cpu_us_per_op")
	if !okH || !okU {
		return ""
	}
	return div(uv, hv)
}

func div(a, b float64) string {
	if b == 0 {
		return ""
	}
	return results.FormatRatio(a / b)
}

func mib(r results.Record) string {
	v, ok := r.MeasureValue("mib_s")
	if !ok {
		return ""
	}
	return fmt.Sprintf("%.1f", v)
}
