package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nordisk/katbench/bench"
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
	// rate (at most 10 × StepDuration), after Options.Warmup.
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

// stepDuration is how long a step at rate lasts.
func (c Capacity) stepDuration(rate float64) time.Duration {
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

	rec *results.Recorder
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

// judge completes step: whether it kept its rate and met the SLO, from
// its recorders.
func (c Capacity) judge(step *CapacityStep, total *results.Recorder, byOp map[string]*results.Recorder) {
	step.Values, step.Met, step.Why = c.SLO.judge(total, byOp)
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

// capacityOrder says how the targets of one capacity run took turns.
const capacityOrder = "interleaved: every target runs step k in turn (the order reversed every other step) before any runs step k+1"

// runCapacity runs the Workload's capacity search on every competitor,
// interleaved step by step, and writes one capacity line per competitor.
func (r *Runner) runCapacity(ctx context.Context, states []*state) error {
	o, wl, c := r.Opts, r.Opts.Workload, *r.Opts.Capacity
	workers := max(o.OpenWorkers, 1)
	searches := make([]*CapacitySearch, len(states))
	prepared := make([]*mixState, len(states))
	skips := make([]string, len(states))
	counts := make([]*contendedCounts, len(states))
	auths := make([]authTotals, len(states)) // token renewals over every step
	for i := range states {
		searches[i], prepared[i], counts[i] = NewCapacitySearch(c), &mixState{}, &contendedCounts{}
	}
	for step := 0; ; step++ {
		active := false
		for j := range states {
			i := bench.Lane(step, j, len(states))
			sr, s := searches[i], states[i]
			if sr.Done || skips[i] != "" {
				continue
			}
			active = true
			env := &Env{Competitor: s.c, Dataset: s.d, SetupErr: s.setup, Opts: o, Threads: workers, Round: step, Target: s.t, created: &s.created}
			if s.setup != nil {
				env.Dataset = nil
			}
			if !NeedTables.Met(env) {
				skips[i] = NeedTables.Explain(env)
				continue
			}
			ops, err := r.prepareMix(ctx, s, prepared[i], env)
			if reason, ok := skipped(err); ok {
				skips[i] = reason
				continue
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				sr.Fail("the mix could not be prepared: " + err.Error())
				continue
			}
			prepared[i].prep.counts = counts[i]
			rate := sr.Next()
			so := o
			so.Rate, so.Duration = rate, c.stepDuration(rate)
			r.logf("%s: capacity %s step %d at %.0f ops/s for %v", s.c.Name(), wl.Mix.Name, step+1, rate, so.Duration)
			endAuth := auths[i].watch(s.c)
			m, split, params, _, err := measureMix(ctx, wl, so, prepared[i].space, ops, workers, step, true)
			endAuth()
			if err != nil {
				return fmt.Errorf("%s capacity %s: %w", s.c.Name(), wl.Mix.Name, err)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st := r.capacityStep(c, wl, rate, m, split)
			st.SchedP99US, _ = params["sched_p99_us"].(float64)
			sr.Record(st)
			if step == 0 && st.Errors > 0 {
				sr.Fail(fmt.Sprintf("the first step (%.0f ops/s) failed: %d of %d operations errored: %s", rate, st.Errors, st.Ops+st.Errors, st.FirstError))
			}
		}
		if !active {
			break
		}
	}
	for i, s := range states {
		if err := r.emitCapacity(s, searches[i], skips[i], counts[i], &prepared[i].prep, workers, &auths[i]); err != nil {
			return err
		}
	}
	return nil
}

// capacityStep turns one step's measurement into a CapacityStep.
func (r *Runner) capacityStep(c Capacity, wl *Workload, rate float64, m Measurement, split mixSplit) CapacityStep {
	weights := wl.ops()
	n := len(weights)
	byOp := map[string]*results.Recorder{}
	first, second := results.NewRecorder(), results.NewRecorder()
	for k, w := range weights {
		byOp[w.Op] = results.Merged(split.recs[k], split.recs[k+n])
		first.Merge(split.recs[k])
		second.Merge(split.recs[k+n])
	}
	st := CapacityStep{Rate: rate, DurationS: m.Elapsed.Seconds(), Ops: m.Rec.Count(), Errors: m.Rec.Errors(), rec: m.Rec, Settled: true}
	if m.Elapsed > 0 {
		st.Achieved = float64(st.Ops+st.Errors) / m.Elapsed.Seconds()
	}
	if m.Rec.Count() > 0 {
		st.P50US, st.P99US = float64(m.Rec.Percentile(50))/1e3, float64(m.Rec.Percentile(99))/1e3
	}
	if first.Count() > 0 && second.Count() > 0 {
		a, b := first.Percentile(99), second.Percentile(99)
		st.P99FirstHalfUS, st.P99LastHalfUS = float64(a)/1e3, float64(b)/1e3
		lo, hi := min(a, b), max(a, b)
		st.Settled = float64(hi) <= 1.5*float64(lo) || hi-lo <= 100*time.Microsecond
	}
	if m.FirstErr != nil {
		st.FirstError = m.FirstErr.Error()
	}
	st.Hist = r.Run.Result("", "", results.Open, 0, m.Rec, m.Elapsed, nil).Hist
	c.judge(&st, m.Rec, byOp)
	return st
}

// emitCapacity writes s's capacity line: the best step's histogram and
// numbers, max_rate, and every step.
func (r *Runner) emitCapacity(s *state, sr *CapacitySearch, skip string, counts *contendedCounts, prep *mixPrep, workers int, auth *authTotals) error {
	o, wl, c := r.Opts, r.Opts.Workload, *r.Opts.Capacity
	name := "capacity." + wl.Mix.Name
	p := wl.params()
	p["slo"] = c.SLO.String()
	p["capacity_order"] = capacityOrder
	p["search"] = map[string]any{"start_rate": c.StartRate, "min_rate": c.MinRate, "max_rate": c.MaxRate, "factor": c.Factor,
		"bisections": c.Bisections, "precision": c.Precision, "step_duration_s": c.StepDuration.Seconds(),
		"step_min_ops": c.StepOps, "keep": c.Keep, "warmup_s": o.Warmup.Seconds(), "open_workers": workers}
	if wl.Arrivals != "" {
		p["arrivals"] = string(wl.Arrivals)
	}
	if wl.Mix.Has("commit_table") {
		for k, v := range counts.commitParams() {
			p[k] = v
		}
		p["commit_counts"] = "every step, warm-ups included"
		if ref := prep.ref; ref != "" {
			p["commit_ref"] = ref
		}
	}
	describe := func(line *results.Record) {
		line.Threads = workers
		bench.Stamp(line, bench.Scenario{Kind: "capacity", Metric: results.OpsSec, Dims: threadsDim}, bench.Level{bench.DimThreads: float64(workers)})
	}
	if skip != "" {
		line := r.Run.Skipped(s.c.Name(), name, skip, r.params(s, p))
		describe(&line)
		return r.Sink.Write(line)
	}
	p["steps"] = sr.Steps
	p["search_end"] = sr.End
	var unsettled []float64
	for _, st := range sr.Steps {
		if !st.Settled {
			unsettled = append(unsettled, st.Rate)
		}
	}
	if len(unsettled) > 0 {
		p["unsettled_steps"] = unsettled
		p["unsettled_note"] = "these steps' p99 moved by more than 1.5× between their halves: longer steps (--step-duration, --step-ops) would be steadier"
	}
	best, ok := sr.MaxRate()
	var at *CapacityStep
	for i := range sr.Steps {
		if ok && sr.Steps[i].Rate == best && sr.Steps[i].Met {
			at = &sr.Steps[i]
		}
	}
	switch {
	case ok:
		p["max_rate"] = best
	case sr.Failed:
		p["capacity_failed"] = sr.End
	default:
		p["capacity_note"] = sr.End
	}
	if at == nil {
		// No rate met the objective (or the target failed): the line
		// carries the first step, its errors and no headline.
		if len(sr.Steps) == 0 {
			if !sr.Failed {
				return errors.New(s.c.Name() + ": capacity search measured nothing")
			}
			// Failed before its first step: one error on the line, so
			// the run exits non-zero.
			failed := results.NewRecorder()
			failed.Error()
			at = &CapacityStep{rec: failed, FirstError: sr.End}
		} else {
			at = &sr.Steps[0]
		}
	}
	if at.Rate > 0 {
		p["rate"] = at.Rate // the offered rate of the step whose numbers the line carries
	}
	line := r.Run.Result(s.c.Name(), name, results.Open, workers, at.rec, time.Duration(at.DurationS*float64(time.Second)), r.params(s, p))
	describe(&line)
	if ok {
		line.SetMeasure("max_rate", best, results.UnitOpsPerSec, results.Higher)
	} else {
		line.OpsSec = 0 // no rate met the objective: no capacity to state
	}
	if at.FirstError != "" {
		line.FirstError = at.FirstError
	}
	auth.stamp(&line) // over every step of the search, the line's own step among them
	return r.Sink.Write(line)
}
