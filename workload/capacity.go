package workload

import (
	"fmt"
	"math"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// Capacity is a capacity search: the open-loop rate of a mix is stepped
// geometrically (StartRate, ×Factor, …) while every step meets the SLO
// and keeps its rate, then bisected (geometric means) between the last
// good and the first bad rate. The answer is the highest rate that met
// every objective and was kept. A Capacity value is immutable and safe
// for concurrent use.
type Capacity struct {
	SLO SLO
	// StartRate is the first step's rate (ops/s); when it breaks the SLO
	// the search steps down by Factor to MinRate.
	StartRate, MinRate, MaxRate float64
	// Factor is the geometric step (> 1).
	Factor float64
	// Bisections bounds the steps after the first bad rate; bisection also
	// stops once first bad / last good ≤ 1 + Precision.
	Bisections int
	Precision  float64
	// StepDuration and StepOps are a step's minimum length: it lasts
	// StepDuration and at least as long as StepOps operations take at its
	// rate (at most 10 × StepDuration), after the run's warm-up
	// (scenarios.Options.Warmup).
	StepDuration time.Duration
	StepOps      int64
	// Keep is the fraction of the offered rate a step must achieve (0.95).
	Keep float64
}

// DefaultCapacity returns the search settings of a full or --quick run.
func DefaultCapacity(quick bool) Capacity {
	c := Capacity{StartRate: 100, MinRate: 100.0 / 8, MaxRate: 1e6, Factor: 2, Bisections: 4, Precision: 0.05,
		StepDuration: 5 * time.Second, StepOps: 5000, Keep: 0.95}
	if quick {
		c.StepDuration, c.StepOps = time.Second, 1000
	}
	return c
}

// Validate rejects settings the search cannot use.
func (c Capacity) Validate() error {
	switch {
	case !(c.StartRate > 0) || c.StartRate > 1e7 || !(c.MaxRate >= c.StartRate) || c.MaxRate > 1e7 || !(c.MinRate > 0) || c.MinRate > c.StartRate:
		return fmt.Errorf("capacity rates: want 0 < min %v ≤ start %v ≤ max %v ≤ 1e7 ops/s", c.MinRate, c.StartRate, c.MaxRate)
	case !(c.Factor > 1) || c.Factor > 100:
		return fmt.Errorf("capacity step factor %v: want > 1 (and ≤ 100)", c.Factor)
	case c.Bisections < 0 || c.Bisections > 50 || !(c.Precision > 0):
		return fmt.Errorf("capacity bisections %d, precision %v: want 0..50 and > 0", c.Bisections, c.Precision)
	case c.StepDuration <= 0 || c.StepOps < 0:
		return fmt.Errorf("capacity step %v, %d ops: want a positive duration and ops ≥ 0", c.StepDuration, c.StepOps)
	case !(c.Keep > 0 && c.Keep <= 1):
		return fmt.Errorf("capacity keep %v: want a fraction in (0,1]", c.Keep)
	case len(c.SLO.Latency) == 0:
		return fmt.Errorf("capacity: no latency objective")
	}
	return nil
}

// StepDurationAt is how long a step at rate lasts.
func (c Capacity) StepDurationAt(rate float64) time.Duration {
	d := c.StepDuration
	if need := time.Duration(float64(c.StepOps) / rate * float64(time.Second)); need > d {
		d = min(need, 10*c.StepDuration)
	}
	return d
}

// CapacityStep is one measured step of a search, as it goes on the
// capacity line's params.steps.
type CapacityStep struct {
	Rate      float64 `json:"rate"`
	Achieved  float64 `json:"achieved"`
	DurationS float64 `json:"duration_s"`
	Ops       int64   `json:"ops"`
	Errors    int64   `json:"errors"`
	// Values are the objectives' percentiles (µs), by Objective.Key.
	Values map[string]float64 `json:"objectives_us"`
	P50US  float64            `json:"p50_us,omitempty"`
	P99US  float64            `json:"p99_us,omitempty"`
	Kept   bool               `json:"kept"`
	Met    bool               `json:"met"`
	// Why says what broke when Met is false.
	Why string `json:"why,omitempty"`
	// Settled is false when the step's second half had a p99 more than
	// 1.5× apart from (and 100 µs beyond) its first half's: the step was
	// not long enough to be stable at that rate.
	Settled        bool    `json:"settled"`
	P99FirstHalfUS float64 `json:"p99_first_half_us,omitempty"`
	P99LastHalfUS  float64 `json:"p99_second_half_us,omitempty"`
	// Hist is the step's whole histogram, encoded like a line's hist.
	Hist string `json:"hist,omitempty"`
	// SchedP99US is the pacer's own scheduling error p99: how late the
	// harness handed operations out. A step whose objective is not far
	// above it measured the machine, not the target.
	SchedP99US float64 `json:"sched_p99_us"`
	// FirstError is the step's first failure.
	FirstError string `json:"first_error,omitempty"`

	// Rec is the step's whole recorder (not on the line: Hist is).
	Rec *results.Recorder `json:"-"`
}

// CapacitySearch decides a search's next rate from the steps measured so
// far; it does not measure. Used by one goroutine.
type CapacitySearch struct {
	c        Capacity
	lo, hi   float64 // the highest good and the lowest bad rate so far (0: none)
	next     float64
	bisected int
	// Done is set when the search has its answer; End says how it ended.
	Done  bool
	End   string
	Steps []CapacityStep
	// Failed is set when the target failed outright (Fail).
	Failed bool
}

// NewCapacitySearch starts a search at c.StartRate.
func NewCapacitySearch(c Capacity) *CapacitySearch {
	return &CapacitySearch{c: c, next: c.StartRate}
}

// Next is the rate of the next step.
func (s *CapacitySearch) Next() float64 { return s.next }

// MaxRate is the highest rate that met the SLO and was kept (false when
// none did).
func (s *CapacitySearch) MaxRate() (float64, bool) { return s.lo, s.lo > 0 }

// Judge completes step: whether it kept its rate and met the SLO, from
// its recorders.
func (c Capacity) Judge(step *CapacityStep, total *results.Recorder, byOp map[string]*results.Recorder) {
	step.Values, step.Met, step.Why = c.SLO.Judge(total, byOp)
	step.Kept = step.Achieved >= c.Keep*step.Rate
	if !step.Kept {
		why := fmt.Sprintf("rate not kept: achieved %.0f of %.0f ops/s (< %.0f %%)", step.Achieved, step.Rate, 100*c.Keep)
		if step.Met {
			step.Why = why
		} else {
			step.Why += "; " + why
		}
		step.Met = false
	}
}

// Record adds the measured step at s.Next() and decides the next rate.
func (s *CapacitySearch) Record(step CapacityStep) {
	s.Steps = append(s.Steps, step)
	rate := step.Rate
	if step.Met {
		s.lo = max(s.lo, rate)
	} else if s.hi == 0 || rate < s.hi {
		s.hi = rate
	}
	c := s.c
	switch {
	case s.hi == 0: // every step met the SLO so far: step up
		if rate >= c.MaxRate {
			s.Done, s.End = true, fmt.Sprintf("every step met the objective up to the highest rate tried (%.0f ops/s, the maximum)", c.MaxRate)
			return
		}
		s.next = min(rate*c.Factor, c.MaxRate)
	case s.lo == 0: // no step met it yet: step down
		if down := rate / c.Factor; down >= c.MinRate {
			s.next = down
			return
		}
		s.Done, s.End = true, fmt.Sprintf("no rate down to %.4g ops/s met the objective", c.MinRate)
	default: // bisect between the last good and the first bad rate
		if s.bisected >= c.Bisections || s.hi/s.lo <= 1+c.Precision {
			s.Done, s.End = true, fmt.Sprintf("bisected between %.0f (met) and %.0f ops/s (broken) in %d steps", s.lo, s.hi, s.bisected)
			return
		}
		s.bisected++
		s.next = math.Sqrt(s.lo * s.hi)
	}
}

// Fail ends the search because a target failed outright.
func (s *CapacitySearch) Fail(why string) { s.Done, s.End, s.lo, s.Failed = true, why, 0, true }
