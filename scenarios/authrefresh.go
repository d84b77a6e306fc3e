package scenarios

import (
	"slices"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// authTotals are the token renewals a competitor's client made during a
// cell's rounds (competitors.AuthRefresher): the client's own work, on
// the line beside the operations, never among their errors.
type authTotals struct {
	latencies []time.Duration
	retries   int64
}

// authWatch takes the renewals of one round of c: call the returned
// function when the round ends. It does nothing for a competitor that
// renews nothing.
func (a *authTotals) watch(c competitors.Competitor) (end func()) {
	ar, ok := competitors.As[competitors.AuthRefresher](c)
	if !ok {
		return func() {}
	}
	before := ar.AuthRefreshes()
	return func() {
		after := ar.AuthRefreshes()
		if n := len(before.Latencies); len(after.Latencies) > n {
			a.latencies = append(a.latencies, after.Latencies[n:]...)
		}
		a.retries += after.Retries - before.Retries
	}
}

// stamp writes the renewals on rec as measures: auth_refreshes,
// auth_refresh_p50_us and auth_refresh_max_us, and auth_retries (requests
// sent again after a 401 for an expired token). Absent when there were
// none.
func (a *authTotals) stamp(rec *results.Record) {
	if n := len(a.latencies); n > 0 {
		l := slices.Clone(a.latencies)
		slices.Sort(l)
		rec.SetMeasure("auth_refreshes", float64(n), results.UnitCount, "")
		rec.SetMeasure("auth_refresh_p50_us", float64(l[(n-1)/2])/1e3, results.UnitMicros, results.Lower)
		rec.SetMeasure("auth_refresh_max_us", float64(l[n-1])/1e3, results.UnitMicros, results.Lower)
	}
	if a.retries > 0 {
		rec.SetMeasure("auth_retries", float64(a.retries), results.UnitCount, "")
	}
}
