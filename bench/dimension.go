package bench

import "github.com/nordisk/katbench/internal/results"

// Dimension is a named axis a scenario's levels vary along. A level's
// name is the scenario's stem with each dimension's value appended, so
// the line names it; the value itself is on the line's dims
// (results.Dims), set by [Stamp] from the scenario's Dims and the level.
type Dimension string

// The dimensions; their values are in base units (see results.Dims).
const (
	DimThreads     Dimension = results.DimThreads     // workers of a catalog scenario: .t<N> on a levelled one
	DimSize        Dimension = results.DimSize        // object size of an S3 operation, bytes: .<size>
	DimConcurrency Dimension = results.DimConcurrency // concurrent requests of an S3 operation: .c<N>
	DimRows        Dimension = results.DimRows        // rows per append: .<rows>
	DimRate        Dimension = results.DimRate        // an open loop's offered rate, ops/s: .open.<rate>
	// DimRatePct is no dimension of its own: it stands beside DimRate on
	// a level whose rate was given as a percentage of a maximum measured
	// in the run, with that percentage.
	DimRatePct Dimension = results.DimRatePct
)

// Level is the value of each dimension at one level of a scenario, in
// base units; [Stamp] writes those the scenario declares.
type Level map[Dimension]float64

// Stamp writes how a line measures on it — sc's kind, its headline metric
// and which way that metric is better — and its level: the value in level
// of each dimension sc declares (Scenario.Dims), with a relative rate's
// percentage beside the rate; a dimension level has no value for (a
// closed loop's rate) is left out, as is any sc does not declare. It is
// the one stamping of every benchmark's lines.
func Stamp(rec *results.Record, sc Scenario, level Level) {
	rec.Kind = string(sc.Kind)
	rec.Metric = sc.Metric
	rec.Better = sc.Metric.Better()
	rec.Dims = nil
	set := func(d Dimension) {
		if v, ok := level[d]; ok {
			if rec.Dims == nil {
				rec.Dims = results.Dims{}
			}
			rec.Dims[string(d)] = v
		}
	}
	for _, d := range sc.Dims {
		set(d)
		if d == DimRate {
			set(DimRatePct)
		}
	}
}
