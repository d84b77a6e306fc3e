package results

// Metric names the headline value of a line: the one compared between
// targets and across runs. It travels on the line (`metric`, with `better`),
// so readers never infer it from the scenario's name.
type Metric string

// The metrics.
const (
	P50    Metric = "p50_us"  // median service time; lower is better
	OpsSec Metric = "ops_sec" // successful operations per second; higher is better
)

// Better says which direction of a metric is an improvement.
type Better string

// The directions.
const (
	Lower  Better = "lower"
	Higher Better = "higher"
)

// Better returns the metric's direction, or "" for an unknown metric.
func (m Metric) Better() Better {
	switch m {
	case P50:
		return Lower
	case OpsSec:
		return Higher
	}
	return ""
}

// Value returns r's value of the metric and whether r has one: a skipped
// line, a line with no successful operation, or an unknown metric has none.
func (m Metric) Value(r Record) (float64, bool) {
	if r.Skipped != "" || r.Ops == 0 {
		return 0, false
	}
	switch m {
	case P50:
		return r.P50US, true
	case OpsSec:
		return r.OpsSec, r.DurationS > 0
	}
	return 0, false
}

// Unit is the metric's short label for tables ("p50", "ops/s").
func (m Metric) Unit() string {
	switch m {
	case P50:
		return "p50"
	case OpsSec:
		return "ops/s"
	}
	return string(m)
}

// HeadlineMetric is the line's metric: its own `metric` field, or p50 for
// lines written before lines carried one.
func (r Record) HeadlineMetric() Metric {
	if r.Metric != "" {
		return r.Metric
	}
	return P50
}
