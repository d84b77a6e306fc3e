package results

import "fmt"

// Measure is one secondary measurement of a line, beside its headline
// metric: a value, its unit and which direction is better. Lines carry
// them under `measures`, keyed by name (e.g. "mib_s", "rows_s",
// "cpu_us_per_op", "parquet_bytes"), so no reader asserts a type out of
// Params or guesses a unit from a name.
type Measure struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Better is the direction of an improvement; "" for a measurement that
	// describes the cell rather than rates it (a byte count, a file count).
	Better Better `json:"better,omitempty"`
	// Rounds are the measurement's value in each interleaved round, in
	// round order, so a ratio of two lines can carry its spread (see
	// RoundSpread); absent when the line has no per-round values.
	Rounds Samples `json:"rounds,omitempty"`
}

// The units of the measurements katbench writes.
const (
	UnitMiBPerSec  = "MiB/s"
	UnitRowsPerSec = "rows/s"
	UnitUSPerOp    = "us/op"
	UnitBytes      = "bytes"
	UnitCount      = "count"
	UnitRatio      = "ratio"
	UnitOpsPerSec  = "ops/s"
	UnitSeconds    = "s"
	UnitMicros     = "us"
	UnitMiB        = "MiB"
)

// SetMeasure records a measurement on the line, replacing one of the same
// name. It is not safe for concurrent use with other writes to r.
func (r *Record) SetMeasure(name string, value float64, unit string, better Better) {
	if r.Measures == nil {
		r.Measures = map[string]Measure{}
	}
	r.Measures[name] = Measure{Value: value, Unit: unit, Better: better}
}

// SetMeasureRounds is SetMeasure with the measurement's value in each
// round.
func (r *Record) SetMeasureRounds(name string, value float64, unit string, better Better, rounds []float64) {
	r.SetMeasure(name, value, unit, better)
	m := r.Measures[name]
	m.Rounds = append(Samples(nil), rounds...)
	r.Measures[name] = m
}

// MeasureRounds returns the per-round values of the named measurement;
// nil when the line has none.
func (r Record) MeasureRounds(name string) []float64 {
	if r.Skipped != "" {
		return nil
	}
	return r.Measures[name].Rounds
}

// MeasureValue returns the value of the named measurement and whether the
// line has it; a skipped line has none.
func (r Record) MeasureValue(name string) (float64, bool) {
	if r.Skipped != "" {
		return 0, false
	}
	m, ok := r.Measures[name]
	return m.Value, ok
}

// String formats the measurement with its unit.
func (m Measure) String() string { return fmt.Sprintf("%g %s", m.Value, m.Unit) }
