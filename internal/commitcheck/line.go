package commitcheck

import (
	"fmt"
	"io"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// Scenario is the scenario name of a storm's result line.
const Scenario = "verify.commits"

// Line builds the result line of one cell: the storm's latency and
// throughput (acknowledged commits; latency from the first try to the
// answer, retries included) and, as measures, the outcome counts, the
// anomaly counts and the costs of contention. rep is nil for a storm
// without markers, whose anomalies were not checked: those measures are
// then absent, never 0. params are the competitor's and the command's.
func (s Storm) Line(run *results.Run, target string, res Result, rep *Report, params map[string]any) results.Record {
	p := map[string]any{"tables": s.Tables, "writers": s.Writers, "commit_retries": s.Retries, "commit_backoff": s.Backoff.orDefault().String(), "markers": !s.NoMarkers}
	if s.Commits > 0 {
		p["commits"] = s.Commits
	} else {
		p["duration"] = s.Duration.String()
	}
	for k, v := range params {
		p[k] = v
	}
	r := run.Result(target, Scenario, results.Closed, s.Writers, res.Acked, res.Elapsed, p)
	r.Kind, r.Metric, r.Better = "verify", results.OpsSec, results.Higher
	r.Dims = results.Dims{results.DimThreads: float64(s.Writers)} // the level: its writers, as a catalog line's threads
	attempts := res.Log.Attempts()
	var acked, sentRefused, exhausted, retries, conflicts, calls int
	var failed int64
	var loads int
	var spent Spent
	var sentTime time.Duration
	firstErr := ""
	for _, a := range attempts {
		conflicts += a.Conflicts
		calls += a.Calls
		if a.Tries > 0 {
			loads += a.Calls - a.Tries
			spent.Load += a.Spent.Load
			spent.Write += a.Spent.Write
			spent.Commit += a.Spent.Commit
			spent.Backoff += a.Spent.Backoff
			sentTime += a.Latency
		}
		switch {
		case a.Outcome == Acked:
			acked++
			retries += a.Tries - 1
		case a.Outcome == Refused && a.Tries > 0 && a.Conflicts == a.Tries:
			exhausted++
			sentRefused++
		default:
			failed++
			if firstErr == "" {
				firstErr = a.Err
			}
		}
	}
	// Errors are the attempts that ended neither acknowledged nor refused
	// by a lost race: indeterminate ones, and ones never sent.
	r.Errors, r.FirstError = failed, firstErr
	count := func(name string, v int) { r.SetMeasure(name, float64(v), results.UnitCount, "") }
	if rep != nil {
		count("acked", rep.Acked)
		count("refused", rep.Refused)
		count("indeterminate", rep.Indeterminate)
		count("indeterminate_present", rep.IndeterminatePresent)
		count("indeterminate_absent", rep.IndeterminateAbsent)
		for _, k := range Kinds {
			r.SetMeasure(string(k), float64(rep.Counts[k]), results.UnitCount, results.Lower)
		}
	} else {
		count("acked", acked)
	}
	if acked > 0 {
		r.SetMeasure("conflicts_per_commit", float64(conflicts)/float64(acked), results.UnitRatio, results.Lower)
		r.SetMeasure("retries_per_commit", float64(retries)/float64(acked), results.UnitRatio, results.Lower)
		r.SetMeasure("round_trips_per_commit", float64(calls)/float64(acked), results.UnitRatio, results.Lower)
	}
	// Where a try's time went: per load, per commit call, the client's
	// work per try, and the share of the sent attempts' time in backoff.
	ms := func(d time.Duration, n int) float64 { return float64(d) / float64(time.Millisecond) / float64(n) }
	if loads > 0 {
		r.SetMeasure("load_ms", ms(spent.Load, loads), "ms", results.Lower)
	}
	if tries := calls - loads; tries > 0 && sentTime > 0 {
		r.SetMeasure("write_ms", ms(spent.Write, tries), "ms", results.Lower)
		r.SetMeasure("commit_call_ms", ms(spent.Commit, tries), "ms", results.Lower)
		r.SetMeasure("backoff_pct", 100*float64(spent.Backoff)/float64(sentTime), "%", "")
	}
	if len(attempts) > 0 {
		r.SetMeasure("failed_after_retries_pct", 100*float64(exhausted)/float64(len(attempts)), "%", results.Lower)
	}
	return r
}

// Summary writes a cell's human summary and its anomalies, with evidence
// (at most max of them; the counts are always whole).
func Summary(w io.Writer, target string, s Storm, line results.Record, rep *Report, max int) {
	m := func(name string) string {
		v, ok := line.MeasureValue(name)
		if !ok {
			return "–"
		}
		if v == float64(int64(v)) {
			return fmt.Sprint(int64(v))
		}
		return fmt.Sprintf("%.3g", v)
	}
	fmt.Fprintf(w, "%-10s W=%-3d K=%-2d R=%-3d %8.1f commits/s  p50 %7.0f µs  p99 %8.0f µs  acked %s refused %s indeterminate %s  conflicts/commit %s retries/commit %s failed-after-retries %s%%  round trips/commit %s\n",
		target, s.Writers, s.Tables, s.Retries, line.OpsSec, line.P50US, line.P99US, m("acked"), m("refused"), m("indeterminate"),
		m("conflicts_per_commit"), m("retries_per_commit"), m("failed_after_retries_pct"), m("round_trips_per_commit"))
	fmt.Fprintf(w, "%-10s   per try: load %s ms, client writes %s ms, commit call %s ms; backoff %s%% of the time\n", "",
		m("load_ms"), m("write_ms"), m("commit_call_ms"), m("backoff_pct"))
	if rep == nil {
		fmt.Fprintf(w, "%-10s   (no markers: history not checked)\n", "")
		return
	}
	fmt.Fprintf(w, "%-10s   anomalies: lost %d duplicated %d phantom %d forked %d unreadable %d  (indeterminate present %d, absent %d)\n", "",
		rep.Counts[Lost], rep.Counts[Duplicated], rep.Counts[Phantom], rep.Counts[Forked], rep.Counts[Unreadable],
		rep.IndeterminatePresent, rep.IndeterminateAbsent)
	for i, a := range rep.Anomalies {
		if i == max {
			fmt.Fprintf(w, "%-10s   … and %d more\n", "", len(rep.Anomalies)-max)
			break
		}
		fmt.Fprintf(w, "%-10s   %s\n", "", results.RedactText(a.String()))
	}
	if line.FirstError != "" {
		fmt.Fprintf(w, "%-10s   %d attempts neither acknowledged nor refused by a conflict; first: %s\n", "", line.Errors, line.FirstError)
	}
}
