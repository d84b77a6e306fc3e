package dataplane

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/nordisk/katbench/internal/results"
)

// isDataLine reports whether r is a line of one of this package's
// scenarios.
func isDataLine(r results.Record) bool {
	_, ok := lookup(r.Scenario)
	return ok && !r.Control
}

// WriteTable prints data-plane lines for people: one row per (target,
// scenario, transport) with rows/s, Parquet MiB/s, files, p50 and p99 of
// the line's histogram and the checksum verdict, then, where a target ran
// on baseline and another transport, that transport's ratios over
// baseline (rows/s for append and scan, p50 for commit latency: above 1 is
// better for rows/s, below 1 for p50), then each line's MiB/s over the raw
// S3 floor of its transport (the control lines of [Baseline]). An empty
// baseline means the first transport the lines name. Lines of other
// benchmarks are ignored.
func WriteTable(w io.Writer, recs []results.Record, baseline string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tscenario\ttransport\tops\terrors\trows/s\tMiB/s\tfiles\tp50 ms\tp99 ms\tchecksum\t")
	type key struct{ target, scenario, transport string }
	cell := map[key]results.Record{}
	var order []key
	var transports []string
	seenT := map[string]bool{}
	for _, r := range recs {
		if !isDataLine(r) {
			continue
		}
		k := key{r.Target, r.Scenario, r.Transport}
		if _, ok := cell[k]; !ok {
			order = append(order, k)
		}
		if !seenT[r.Transport] {
			seenT[r.Transport] = true
			transports = append(transports, r.Transport)
		}
		cell[k] = r
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\tskipped: %s\t\t\t\t\t\t\t\t\n", r.Target, r.Scenario, r.Transport, r.Skipped)
			continue
		}
		check := ""
		if v, ok := r.MeasureValue("checksum_ok"); ok {
			check = "ok"
			if v < 1 {
				check = "MISMATCH"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Target, r.Scenario, r.Transport,
			r.Ops, r.Errors, measured(r, "rows_s", "%.0f"), measured(r, "mib_s", "%.1f"), measured(r, "files", "%.0f"),
			ms(r.P50US, r.Ops), ms(r.P99US, r.Ops), check)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if baseline == "" && len(transports) > 0 {
		baseline = transports[0]
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := 0
	for _, t := range transports {
		if t == baseline {
			continue
		}
		header := false
		for _, k := range order {
			if k.transport != baseline {
				continue
			}
			h := cell[k]
			u, ok := cell[key{k.target, k.scenario, t}]
			if !ok || h.Skipped != "" || u.Skipped != "" {
				continue
			}
			if !header {
				if rows == 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(tw, "target\tscenario\t%s/%s rows/s (above 1× %s is faster)\t%s/%s p50 (below 1× %s is faster)\t\n", t, baseline, t, t, baseline, t)
				header = true
			}
			rows++
			hr, _ := h.MeasureValue("rows_s")
			ur, _ := u.MeasureValue("rows_s")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", k.target, k.scenario, ratio(ur, hr), ratio(u.P50US, h.P50US))
		}
	}
	if rows > 0 {
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return writeEfficiency(w, recs)
}

// writeEfficiency prints, per data.append and data.scan line, its Parquet
// MiB/s over the raw S3 PUT / GET MiB/s of the same transport (the
// control lines of [Baseline]), when the run measured them.
func writeEfficiency(w io.Writer, recs []results.Record) error {
	type key struct{ transport, op string }
	raw := map[key]results.Record{}
	for _, r := range recs {
		if r.Skipped != "" || !r.Control {
			continue
		}
		for _, sc := range registered() {
			if sc.raw != "" && r.Params["op"] == sc.raw {
				raw[key{r.Target, sc.raw}] = r
			}
		}
	}
	if len(raw) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := 0
	for _, r := range recs {
		sc, ok := lookup(r.Scenario)
		if r.Skipped != "" || r.Control || !ok || sc.raw == "" {
			continue
		}
		base, ok := raw[key{r.Transport, sc.raw}]
		if !ok {
			continue
		}
		if rows == 0 {
			fmt.Fprintln(w)
			fmt.Fprintln(tw, "target\tscenario\ttransport\tParquet MiB/s\traw\traw MiB/s\tratio\t")
		}
		rows++
		dm, _ := r.MeasureValue("mib_s")
		rm, _ := base.MeasureValue("mib_s")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%.1f\t%s\t\n", r.Target, r.Scenario, r.Transport, dm, base.Scenario, rm, ratio(dm, rm))
	}
	if rows == 0 {
		return nil
	}
	return tw.Flush()
}

// measured formats the named measurement of r, "—" when r lacks it.
func measured(r results.Record, name, format string) string {
	v, ok := r.MeasureValue(name)
	if !ok {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

func ms(us float64, ops int64) string {
	if ops == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", us/1e3)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "—"
	}
	return results.FormatRatio(a / b)
}
