package analysis

import (
	"fmt"
	"strings"
)

// The verify table (layout=verify): one row per cell of a `katbench
// verify` run (scenario verify.commits), its rate and latency, the attempts
// by outcome, the costs of contention and the anomaly counts, in the run's
// order. targets= narrows it. A run with --kill-every adds the kills and
// the indeterminate commits found present and absent.
//
//	<!-- katbench:table verify-competitors layout=verify -->
//
// A measure a line does not carry (nothing acknowledged, --no-markers) is
// "—", never 0.

// verifyColumns are the measures after the rate and latency columns.
var verifyColumns = []struct{ head, measure, format string }{
	{"acked", "acked", "%.0f"},
	{"refused", "refused", "%.0f"},
	{"indet.", "indeterminate", "%.0f"},
	{"conflicts/commit", "conflicts_per_commit", "%.2f"},
	{"retries/commit", "retries_per_commit", "%.2f"},
	{"failed after retries %", "failed_after_retries_pct", "%.1f"},
	{"round trips/commit", "round_trips_per_commit", "%.1f"},
}

// verifyAnomalies are the counts of the last column, lost/dup/…
var verifyAnomalies = []string{"lost", "duplicated", "phantom", "forked", "unreadable"}

// verifyTable renders the layout=verify table of run.
func verifyTable(b Block, run []Line) (string, error) {
	var lines []Line
	kills := false
	for _, l := range narrow(b, run) {
		if l.Scenario == "verify.commits" {
			lines = append(lines, l)
			_, k := l.Params["kills"]
			kills = kills || k
		}
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("%w: no verify.commits line", ErrNoLines)
	}
	var sb strings.Builder
	sb.WriteString("| target | W | K | commits/s | p50 ms | p99 ms |")
	for _, c := range verifyColumns {
		sb.WriteString(" " + c.head + " |")
	}
	extra := 1
	if kills {
		sb.WriteString(" kills | indet. present/absent |")
		extra += 2
	}
	sb.WriteString(" lost/dup/phantom/forked/unreadable |\n|---|---|---|---|---|---|" +
		strings.Repeat("---|", len(verifyColumns)+extra) + "\n")
	for _, l := range lines {
		k := "—"
		if v, ok := l.Params["tables"]; ok {
			k = fmt.Sprint(v)
		}
		fmt.Fprintf(&sb, "| %s | %d | %s | %s | %s | %s |", l.Target, l.Threads, k,
			optFormat(l.OpsSec, "%.1f", 1), optFormat(l.P50US, "%.1f", 1000), optFormat(l.P99US, "%.0f", 1000))
		for _, c := range verifyColumns {
			sb.WriteString(" " + measureFormat(l, c.measure, c.format) + " |")
		}
		if kills {
			n := "—"
			if v, ok := l.Params["kills"]; ok {
				n = fmt.Sprint(v)
			}
			fmt.Fprintf(&sb, " %s | %s/%s |", n, measureFormat(l, "indeterminate_present", "%.0f"), measureFormat(l, "indeterminate_absent", "%.0f"))
		}
		counts := make([]string, len(verifyAnomalies))
		for i, m := range verifyAnomalies {
			counts[i] = measureFormat(l, m, "%.0f")
		}
		sb.WriteString(" " + strings.Join(counts, "/") + " |\n")
	}
	return sb.String(), nil
}

// optFormat formats *p divided by div, "—" when p is nil.
func optFormat(p *float64, format string, div float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf(format, *p/div)
}

// measureFormat formats the line's measure m, "—" when it has none.
func measureFormat(l Line, m, format string) string {
	v, ok := l.Measures[m]
	if !ok {
		return "—"
	}
	return fmt.Sprintf(format, v.Value)
}

func init() {
	RegisterLayout(Layout{Name: "verify", Doc: "a katbench verify run's cells: outcomes, anomalies and the costs of contention",
		Render: func(b Block, run []Line, _ RunInfo, _ Sources) (string, error) { return verifyTable(b, run) }})
}
