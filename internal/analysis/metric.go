package analysis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// Metric is one number of a line that can be compared across runs.
type Metric struct {
	Name string
	Unit string
	// HigherBetter is true for rates (ops/s), false for times.
	HigherBetter bool
	// Deterministic metrics (counters such as allocations or syscalls per
	// operation) get the tighter default threshold; wall-clock ones the
	// looser.
	Deterministic bool
	// MinChange is the smallest absolute change (in Unit) that can be a
	// regression: a counter near zero (0.003 allocations per operation of
	// background work) moves by large ratios that mean nothing.
	MinChange float64
	value     func(Line) *float64
	round     func(Round) *float64
	// samples, when set, gives the per-round values itself (a measure's
	// rounds) instead of round.
	samples func(Line) []float64
}

// Metrics katbench lines carry. All three are wall-clock.
var (
	P50    = Metric{Name: "p50", Unit: "µs", value: func(l Line) *float64 { return l.P50US }, round: func(r Round) *float64 { return r.P50US }}
	P99    = Metric{Name: "p99", Unit: "µs", value: func(l Line) *float64 { return l.P99US }}
	OpsSec = Metric{Name: "ops_sec", Unit: "ops/s", HigherBetter: true, value: func(l Line) *float64 { return l.OpsSec }, round: func(r Round) *float64 { return r.OpsSec }}
	P999   = Metric{Name: "p999", Unit: "µs", value: func(l Line) *float64 { return l.P999US }}
)

// cpuPerOp is the process CPU per operation a transport line carries in
// its measures (cpu_us_per_op, per round in the measure's rounds).
var cpuPerOp = measureMetric("cpu_us_per_op", "µs/op")

// measureMetric is the metric of the line's measure name, its per-round
// values the measure's rounds; nil when the line lacks it.
func measureMetric(name, unit string) Metric {
	return Metric{Name: name, Unit: unit,
		value: func(l Line) *float64 {
			if m, ok := l.Measure(name); ok {
				return &m.Value
			}
			return nil
		},
		samples: func(l Line) []float64 {
			m, _ := l.Measure(name)
			return m.Rounds
		}}
}

// Counters are the deterministic per-operation counters a line may carry
// (results.Counters, the line's `counters` object): they do not depend on
// the moment the way wall time does, so they are gated at the tighter
// DeterministicThreshold and never control-normalised.
var Counters = []Metric{
	counter("allocs", "allocs/op", 0.5, func(c *results.Counters) *float64 { return c.Allocs }),
	counter("alloc_bytes", "B/op", 16, func(c *results.Counters) *float64 { return c.AllocBytes }),
	counter("read_syscalls", "read syscalls/op", 0.1, func(c *results.Counters) *float64 { return c.ReadSyscalls }),
	counter("write_syscalls", "write syscalls/op", 0.1, func(c *results.Counters) *float64 { return c.WriteSyscalls }),
	counter("write_syscall_bytes", "bytes to write calls/op", 0.1, func(c *results.Counters) *float64 { return c.WriteBytes }),
	counter("instructions", "instructions/op", 100, func(c *results.Counters) *float64 { return c.Instructions }),
	counter("cycles", "cycles/op", 100, func(c *results.Counters) *float64 { return c.Cycles }),
}

// counter is a metric of the line's counters (results.Counters); nil when
// the line has none or not that one (the counter was not read: absent,
// never 0).
func counter(name, unit string, floor float64, get func(*results.Counters) *float64) Metric {
	return Metric{Name: name, Unit: unit, Deterministic: true, MinChange: floor,
		value: func(l Line) *float64 {
			if l.Counters == nil {
				return nil
			}
			return get(l.Counters)
		}}
}

// HeadlineOf returns the metric a line names as its headline (p50_us or
// ops_sec), falling back to P50 for lines that name none.
func HeadlineOf(l Line) Metric {
	if l.Metric == results.OpsSec {
		return OpsSec
	}
	return P50
}

// ErrUnknownMetric is returned by MetricByName for a name it does not know.
var ErrUnknownMetric = errors.New("unknown metric")

// MetricByName returns p50, p99, p999, ops_sec or one of the Counters
// (allocs, alloc_bytes, read_syscalls, write_syscalls, instructions,
// cycles).
func MetricByName(name string) (Metric, error) {
	names := []string{}
	for _, m := range append([]Metric{P50, P99, P999, OpsSec}, Counters...) {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Metric{}, fmt.Errorf("%w %q: want %s", ErrUnknownMetric, name, strings.Join(names, ", "))
}

// Value returns the line's value of m, or false when the line has none.
func (m Metric) Value(l Line) (float64, bool) {
	if !l.Measured() {
		return 0, false
	}
	if p := m.value(l); p != nil {
		return *p, true
	}
	return 0, false
}

// Samples returns the line's per-round values of m when it carries them,
// else its single merged value (one sample), else nothing.
func (m Metric) Samples(l Line) []float64 {
	if !l.Measured() {
		return nil
	}
	if m.samples != nil {
		if out := m.samples(l); len(out) > 0 {
			return out
		}
	} else if m.round != nil && len(l.Rounds) > 0 {
		out := make([]float64, 0, len(l.Rounds))
		for _, r := range l.Rounds {
			if p := m.round(r); p != nil {
				out = append(out, *p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if v, ok := m.Value(l); ok {
		return []float64{v}
	}
	return nil
}
