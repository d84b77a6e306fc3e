package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/workload"
)

import ()

// capacityOrder says how the targets of one capacity run took turns.
const capacityOrder = "interleaved: every target runs step k in turn (the order reversed every other step) before any runs step k+1"

// runCapacity runs the Workload's capacity search on every competitor,
// interleaved step by step, and writes one capacity line per competitor.
func (r *Runner) runCapacity(ctx context.Context, states []*state) error {
	o, wl, c := r.Opts, r.Opts.Workload, *r.Opts.Capacity
	workers := max(o.OpenWorkers, 1)
	searches := make([]*workload.CapacitySearch, len(states))
	prepared := make([]*mixState, len(states))
	skips := make([]string, len(states))
	counts := make([]*contendedCounts, len(states))
	auths := make([]authTotals, len(states)) // token renewals over every step
	for i := range states {
		searches[i], prepared[i], counts[i] = workload.NewCapacitySearch(c), &mixState{}, &contendedCounts{}
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
			so.Rate, so.Duration = rate, c.StepDurationAt(rate)
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
func (r *Runner) capacityStep(c workload.Capacity, wl *workload.Workload, rate float64, m Measurement, split mixSplit) workload.CapacityStep {
	weights := wl.Weighted()
	n := len(weights)
	byOp := map[string]*results.Recorder{}
	first, second := results.NewRecorder(), results.NewRecorder()
	for k, w := range weights {
		byOp[w.Op] = results.Merged(split.recs[k], split.recs[k+n])
		first.Merge(split.recs[k])
		second.Merge(split.recs[k+n])
	}
	st := workload.CapacityStep{Rate: rate, DurationS: m.Elapsed.Seconds(), Ops: m.Rec.Count(), Errors: m.Rec.Errors(), Rec: m.Rec, Settled: true}
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
	c.Judge(&st, m.Rec, byOp)
	return st
}

// emitCapacity writes s's capacity line: the best step's histogram and
// numbers, max_rate, and every step.
func (r *Runner) emitCapacity(s *state, sr *workload.CapacitySearch, skip string, counts *contendedCounts, prep *mixPrep, workers int, auth *authTotals) error {
	o, wl, c := r.Opts, r.Opts.Workload, *r.Opts.Capacity
	name := "capacity." + wl.Mix.Name
	p := wl.Params()
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
	var at *workload.CapacityStep
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
			at = &workload.CapacityStep{Rec: failed, FirstError: sr.End}
		} else {
			at = &sr.Steps[0]
		}
	}
	if at.Rate > 0 {
		p["rate"] = at.Rate // the offered rate of the step whose numbers the line carries
	}
	line := r.Run.Result(s.c.Name(), name, results.Open, workers, at.Rec, time.Duration(at.DurationS*float64(time.Second)), r.params(s, p))
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
