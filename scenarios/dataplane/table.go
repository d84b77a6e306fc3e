package dataplane

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nordisk/katbench/internal/results"
)

// WriteTable prints data-plane lines for people: one row per (target,
// scenario, transport) with rows/s, Parquet MiB/s, files, p50 and p99 of
// the line's histogram and the checksum verdict, then, where a target ran
// on both http and uring, the uring/http ratios (rows/s for append and
// scan, p50 for commit latency: above 1 is better for rows/s, below 1 for
// p50). Lines that are not data-plane lines are ignored.
func WriteTable(w io.Writer, recs []results.Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tscenario\ttransport\tops\terrors\trows/s\tMiB/s\tfiles\tp50 ms\tp99 ms\tchecksum\t")
	type key struct{ target, scenario, transport string }
	cell := map[key]results.Record{}
	var order []key
	for _, r := range recs {
		if !strings.HasPrefix(r.Scenario, "data.") {
			continue
		}
		k := key{r.Target, r.Scenario, r.Transport}
		if _, ok := cell[k]; !ok {
			order = append(order, k)
		}
		cell[k] = r
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\tskipped: %s\t\t\t\t\t\t\t\t\n", r.Target, r.Scenario, r.Transport, r.Skipped)
			continue
		}
		check := ""
		if ok, present := r.Params["checksum_ok"].(bool); present {
			check = "ok"
			if !ok {
				check = "MISMATCH"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Target, r.Scenario, r.Transport,
			r.Ops, r.Errors, param(r, "rows_s", "%.0f"), param(r, "mib_s", "%.1f"), param(r, "files", "%v"),
			ms(r.P50US, r.Ops), ms(r.P99US, r.Ops), check)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := 0
	for _, k := range order {
		if k.transport != "http" {
			continue
		}
		h := cell[k]
		u, ok := cell[key{k.target, k.scenario, "uring"}]
		if !ok || h.Skipped != "" || u.Skipped != "" {
			continue
		}
		if rows == 0 {
			fmt.Fprintln(w)
			fmt.Fprintln(tw, "target\tscenario\turing/http rows/s (above 1× uring is faster)\turing/http p50 (below 1× uring is faster)\t")
		}
		rows++
		hr, _ := h.Params["rows_s"].(float64)
		ur, _ := u.Params["rows_s"].(float64)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", k.target, k.scenario, ratio(ur, hr), ratio(u.P50US, h.P50US))
	}
	if rows > 0 {
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return writeEfficiency(w, recs)
}

// writeEfficiency prints, per data.append and data.scan line, its Parquet
// MiB/s over the raw s3.put / s3.get MiB/s of the same transport (lines of
// katbench transport's bench, whose target is the transport), when the run
// measured them.
func writeEfficiency(w io.Writer, recs []results.Record) error {
	raw := map[[2]string]results.Record{} // (transport, op) → line
	for _, r := range recs {
		if r.Skipped != "" || !strings.HasPrefix(r.Scenario, "s3.") {
			continue
		}
		if op, _ := r.Params["op"].(string); op == "put" || op == "get" {
			raw[[2]string{r.Target, op}] = r
		}
	}
	if len(raw) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := 0
	for _, r := range recs {
		op := ""
		switch {
		case r.Skipped != "":
			continue
		case strings.HasPrefix(r.Scenario, AppendPrefix):
			op = "put"
		case r.Scenario == ScanName:
			op = "get"
		default:
			continue
		}
		base, ok := raw[[2]string{r.Transport, op}]
		if !ok {
			continue
		}
		if rows == 0 {
			fmt.Fprintln(w)
			fmt.Fprintln(tw, "target\tscenario\ttransport\tParquet MiB/s\traw\traw MiB/s\tratio\t")
		}
		rows++
		dm, _ := r.Params["mib_s"].(float64)
		rm, _ := base.Params["mib_s"].(float64)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%s\t%.1f\t%s\t\n", r.Target, r.Scenario, r.Transport, dm, base.Scenario, rm, ratio(dm, rm))
	}
	if rows == 0 {
		return nil
	}
	return tw.Flush()
}

func param(r results.Record, name, format string) string {
	v, ok := r.Params[name]
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
	return fmt.Sprintf("%.2f×", a/b)
}
