package analysis

import (
	"fmt"
	"strings"
)

// The retry-budget table (layout=verify-retries): one row per cell of a
// `katbench verify` run made with several --commit-retries (and one
// --commit-backoff), in the run's order — what a budget buys against what
// it costs — and where one try's time went: the catalog's load, the
// client's own writes (manifest and manifest list), the catalog's commit
// call, and the share of the attempts' time spent in iceberg-go's backoff.
// targets= narrows it.
//
//	<!-- katbench:table verify-retries layout=verify-retries -->
//
// A measure a line does not carry (nothing acknowledged, a line from
// before the time split was recorded) is "—", never 0.

// verifyRetriesColumns are the measures after the rate and latency columns.
var verifyRetriesColumns = []struct{ head, measure, format string }{
	{"acked", "acked", "%.0f"},
	{"refused", "refused", "%.0f"},
	{"indet.", "indeterminate", "%.0f"},
	{"failed after retries %", "failed_after_retries_pct", "%.1f"},
	{"retries/commit", "retries_per_commit", "%.2f"},
	{"round trips/commit", "round_trips_per_commit", "%.1f"},
	{"load ms", "load_ms", "%.2f"},
	{"client writes ms", "write_ms", "%.1f"},
	{"commit call ms", "commit_call_ms", "%.1f"},
	{"backoff % of time", "backoff_pct", "%.0f"},
}

// verifyRetriesTable renders the layout=verify-retries table of run.
func verifyRetriesTable(b Block, run []Line) (string, error) {
	var lines []Line
	for _, l := range narrow(b, run) {
		if l.Scenario == "verify.commits" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("%w: no verify.commits line", ErrNoLines)
	}
	var sb strings.Builder
	sb.WriteString("| target | W | K | retries | backoff | commits/s | p50 ms | p99 ms |")
	for _, c := range verifyRetriesColumns {
		sb.WriteString(" " + c.head + " |")
	}
	sb.WriteString(" lost/dup/phantom/forked/unreadable |\n|---|---|---|---|---|---|---|---|" +
		strings.Repeat("---|", len(verifyRetriesColumns)+1) + "\n")
	param := func(l Line, k string) string {
		if v, ok := l.Params[k]; ok {
			return fmt.Sprint(v)
		}
		return "—"
	}
	for _, l := range lines {
		fmt.Fprintf(&sb, "| %s | %d | %s | %s | %s | %s | %s | %s |", l.Target, l.Threads, param(l, "tables"),
			param(l, "commit_retries"), param(l, "commit_backoff"),
			optFormat(l.OpsSec, "%.1f", 1), optFormat(l.P50US, "%.1f", 1000), optFormat(l.P99US, "%.0f", 1000))
		for _, c := range verifyRetriesColumns {
			sb.WriteString(" " + measureFormat(l, c.measure, c.format) + " |")
		}
		counts := make([]string, len(verifyAnomalies))
		for i, m := range verifyAnomalies {
			counts[i] = measureFormat(l, m, "%.0f")
		}
		sb.WriteString(" " + strings.Join(counts, "/") + " |\n")
	}
	return sb.String(), nil
}

func init() {
	RegisterLayout(Layout{Name: "verify-retries", Doc: "a verify run's cells by retry budget and backoff, with where a try's time went",
		Render: func(b Block, run []Line, _ RunInfo, _ Sources) (string, error) { return verifyRetriesTable(b, run) }})
}
