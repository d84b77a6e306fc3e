package analysis

import (
	"fmt"
	"slices"
	"strings"
)

// The commit-safety summary (layout=verify-summary): one row per
// competitor over the newest run of each label in label= (comma-separated),
// so every competitor checked by any of those runs has its row: the cells
// checked, how often its server was killed, the anomalies found in all of
// them, and the failed-after-retries % at 16 and 64 writers on one table
// (its newest cell at each, one without kills where there is one).
//
//	<!-- katbench:table verify-summary layout=verify-summary label=verify-ours,verify-reach -->

// verifySummaryTable renders the summary of lines, the verify.commits
// lines of the selected runs in the order of labels.
func verifySummaryTable(b Block, lines []Line) (string, error) {
	type row struct {
		cells, kills int
		anomalies    [5]float64
		anomalyKnown bool
		fail         map[int]Line // writers → newest cell with one table
	}
	rows := map[string]*row{}
	var order []string
	for _, l := range narrow(b, lines) {
		if l.Scenario != "verify.commits" {
			continue
		}
		r := rows[l.Target]
		if r == nil {
			r = &row{fail: map[int]Line{}}
			rows[l.Target] = r
			order = append(order, l.Target)
		}
		r.cells++
		if k, ok := l.Params["kills"].(float64); ok {
			r.kills += int(k)
		}
		for i, m := range verifyAnomalies {
			if v, ok := l.MeasureValue(m); ok {
				r.anomalies[i] += v
				r.anomalyKnown = true
			}
		}
		// The contention columns read cells without crashes when there
		// are any: a killed server refuses for another reason.
		if k, _ := l.Params["tables"].(float64); k == 1 {
			_, killed := l.Params["kills"]
			old, ok := r.fail[l.Threads]
			_, oldKilled := old.Params["kills"]
			if !ok || (oldKilled && !killed) || (oldKilled == killed && !l.TS.Before(old.TS)) {
				r.fail[l.Threads] = l
			}
		}
	}
	if len(order) == 0 {
		return "", fmt.Errorf("%w: no verify.commits line", ErrNoLines)
	}
	var sb strings.Builder
	sb.WriteString("| target | cells | server killed | lost/dup/phantom/forked/unreadable | failed after retries %, 16 writers | 64 writers |\n|---|---|---|---|---|---|\n")
	for _, t := range order {
		r := rows[t]
		an := "—"
		if r.anomalyKnown {
			var parts []string
			for _, v := range r.anomalies {
				parts = append(parts, fmt.Sprintf("%.0f", v))
			}
			an = strings.Join(parts, "/")
			if slices.ContainsFunc(r.anomalies[:], func(v float64) bool { return v > 0 }) {
				an = "**" + an + "**"
			}
		}
		kills := "—"
		if r.kills > 0 {
			kills = fmt.Sprintf("%d times", r.kills)
		}
		fail := func(w int) string {
			l, ok := r.fail[w]
			if !ok {
				return "—"
			}
			return measureFormat(l, "failed_after_retries_pct", "%.1f")
		}
		fmt.Fprintf(&sb, "| %s | %d | %s | %s | %s | %s |\n", t, r.cells, kills, an, fail(16), fail(64))
	}
	sb.WriteString("\nAnomalies summed over every cell of the runs (bold when any); failed after retries: commits refused after every retry (`--commit-retries`, 4 by default), a clean refusal, not an anomaly.\n")
	return sb.String(), nil
}

func init() {
	RegisterLayout(Layout{Name: "verify-summary", Doc: "one row per competitor over the newest run of each label in label=A,B,…", Runs: NewestOfEachLabel,
		Render: func(b Block, lines []Line, _ RunInfo, _ Sources) (string, error) { return verifySummaryTable(b, lines) }})
}
