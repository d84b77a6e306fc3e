package s3bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/transport"
)

// DefaultDuration is the open loop's measured time per (transport, cell,
// rate) when Config.Duration is 0.
const DefaultDuration = 10 * time.Second

// MaxRate bounds an absolute offered rate, ops/s.
const MaxRate = 1e7

// Rate is one offered rate of the open loop: OpsSec operations per second,
// or (OpsSec 0) Pct percent of net/http's closed-loop ops/s in the same
// cell of the same run.
type Rate struct {
	OpsSec float64
	Pct    float64
}

// String is the rate as parsed: "2000" or "50%".
func (r Rate) String() string {
	if r.OpsSec > 0 {
		return strconv.FormatFloat(r.OpsSec, 'f', -1, 64)
	}
	return strconv.FormatFloat(r.Pct, 'f', -1, 64) + "%"
}

// tag names the rate in a scenario: "2000ops", "50pct".
func (r Rate) tag() string {
	if r.OpsSec > 0 {
		return strconv.FormatFloat(r.OpsSec, 'f', -1, 64) + "ops"
	}
	return strconv.FormatFloat(r.Pct, 'f', -1, 64) + "pct"
}

// ParseRates parses a comma-separated list of rates: ops/s ("2000") or
// percentages of net/http's closed-loop maximum ("25%", 0 < p ≤ 1000).
func ParseRates(s string) ([]Rate, error) {
	var out []Rate
	for _, f := range splitList(s) {
		var r Rate
		if num, ok := strings.CutSuffix(f, "%"); ok {
			p, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || !(p > 0) || p > 1000 {
				return nil, fmt.Errorf("%w: rate %q, want a percentage in (0, 1000]", ErrBadConfig, f)
			}
			r.Pct = p
		} else {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || !(v > 0) || v > MaxRate {
				return nil, fmt.Errorf("%w: rate %q, want ops/s in (0, %g] or a percentage such as 50%%", ErrBadConfig, f, MaxRate)
			}
			r.OpsSec = v
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty rate list", ErrBadConfig)
	}
	return out, nil
}

// CheckRates rejects rates that cannot be offered: a non-positive or
// too-high rate, or a percentage when net/http is not measured.
func CheckRates(rates []Rate, kinds []transport.Kind) error {
	for _, r := range rates {
		switch {
		case r.OpsSec > 0:
			if r.OpsSec > MaxRate || r.Pct != 0 {
				return fmt.Errorf("%w: rate %v", ErrBadConfig, r)
			}
		case r.Pct > 0 && r.Pct <= 1000:
			if !slices.Contains(kinds, transport.Baseline()) {
				return fmt.Errorf("%w: rate %v is a percentage of the baseline transport's (%s) closed-loop maximum, but %s is not among the transports", ErrBadConfig, r, transport.Baseline(), transport.Baseline())
			}
		default:
			return fmt.Errorf("%w: rate %v", ErrBadConfig, r)
		}
	}
	return nil
}

// OpenScenario names an open-loop cell: "s3.head.c64.open.50pct".
func OpenScenario(op Op, size int64, conc int, r Rate) string {
	return Scenario(op, size, conc) + ".open." + r.tag()
}

// openState is one lane's open-loop measurement of one (cell, rate).
type openState struct {
	recs      []*results.Recorder
	sched     []*results.Recorder
	elapsed   time.Duration
	issued    int64
	completed int64
	warmErrs  int64
	firstErr  error
	roundP50  results.Samples
	roundOps  results.Samples
	cpu       time.Duration
	roundCPU  []float64
	cpuOK     bool
}

// openCell offers rate r to every lane of the closed cell cc for
// cfg.Duration, split into cfg.Rounds rounds interleaved like the closed
// loop's, using the cell's workers (one pacer worker per connection), and
// writes one line per lane. A percentage rate is taken of the baseline
// transport's closed-loop ops/s in the cell, known once cc finished.
func openCell(cfg Config, cc *closedCell, r Rate, sink results.Sink) bench.Cell {
	per := cfg.Duration / time.Duration(cfg.Rounds)
	if per <= 0 {
		per = cfg.Duration
	}
	c, size, lanes := cc.c, cc.c.size, cc.lanes
	opens := make([]*openState, len(lanes))
	name := OpenScenario(c.op, size, c.conc, r)
	rate, base := r.OpsSec, 0.0
	return bench.CellFuncs{
		StartFunc: func(context.Context) error {
			if rate == 0 {
				if cc.base <= 0 {
					return fmt.Errorf("s3bench: rate %v of %s: %s measured no closed-loop ops/s to take it of", r, Scenario(c.op, size, c.conc), transport.Baseline())
				}
				base = cc.base
				rate = base * r.Pct / 100
			}
			for i := range opens {
				opens[i] = &openState{cpuOK: true}
			}
			return nil
		},
		RoundFunc: func(ctx context.Context, _, i int) error {
			st, ol := cc.states[i], opens[i]
			count := make([]int, len(st.workers)) // per pacer worker: its own goroutine's
			op := func(ctx context.Context, w int) error {
				wk := st.workers[w]
				err := wk.do(ctx)
				if err == nil && count[w]%VerifyEvery == 0 {
					err = wk.verify()
				}
				count[w]++
				return err
			}
			c0, ok0 := results.ProcessCPU()
			res, err := pacer.Run(ctx, pacer.Config{Rate: rate, Duration: per, Workers: len(st.workers)}, op)
			c1, ok1 := results.ProcessCPU()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("s3bench: open loop %s: %w", name, err)
			}
			ol.recs = append(ol.recs, res.Rec)
			ol.sched = append(ol.sched, res.Sched)
			ol.elapsed += res.Elapsed
			ol.issued += res.Issued
			ol.completed += res.Completed
			ol.warmErrs += res.WarmupErrors
			if ol.firstErr == nil && res.FirstErr != nil {
				ol.firstErr = res.FirstErr
			}
			if ol.cpuOK = ol.cpuOK && ok0 && ok1; ol.cpuOK && res.Completed > 0 {
				ol.cpu += c1 - c0
				ol.roundCPU = append(ol.roundCPU, float64((c1-c0).Nanoseconds())/1e3/float64(res.Completed))
			}
			p50, ops := math.NaN(), math.NaN()
			if res.Rec.Count() > 0 {
				p50 = float64(res.Rec.Percentile(50)) / 1e3
			}
			if res.Elapsed > 0 {
				ops = res.Achieved()
			}
			ol.roundP50 = append(ol.roundP50, p50)
			ol.roundOps = append(ol.roundOps, ops)
			return nil
		},
		FinishFunc: func(context.Context) error {
			for i, l := range lanes {
				if err := sink.Write(recordOpen(cfg, c, size, l, cc.states[i], opens[i], r, rate, base, per, cc.fallback)); err != nil {
					return fmt.Errorf("s3bench: write result: %w", err)
				}
			}
			return nil
		},
	}
}

// recordOpen builds the open-loop line of one lane: the closed loop's
// params and resources, plus the offered and achieved rates.
func recordOpen(cfg Config, c cell, size int64, l lane, st *laneCell, ol *openState, r Rate, rate, base float64, per time.Duration, fallback string) results.Record {
	rec := results.Merged(ol.recs...)
	sched := results.Merged(ol.sched...)
	params := lineParams(cfg, c, size, l, st)
	delete(params, "iterations")
	params["rate"] = rate
	params["rate_spec"] = r.String()
	if base > 0 {
		params["rate_base_ops_sec"] = base
		params["rate_base"] = string(transport.Baseline()) + " closed-loop ops/s, same cell, this run"
	}
	params["duration_s"] = cfg.Duration.Seconds()
	params["round_duration_s"] = per.Seconds()
	params["open_workers"] = c.conc
	params["issued"] = ol.issued
	params["completed"] = ol.completed
	achieved := 0.0
	if ol.elapsed > 0 {
		achieved = float64(ol.completed) / ol.elapsed.Seconds()
	}
	kept := achieved >= 0.95*rate
	params["rate_kept"] = kept
	if !kept {
		params["rate_note"] = fmt.Sprintf("the transport and store could not keep up: achieved %.0f of %.0f ops/s offered (< 95 %%); latencies include the queueing", achieved, rate)
	}
	if sched.Count() > 0 {
		params["sched_p50_us"] = float64(sched.Percentile(50)) / 1e3
		params["sched_p99_us"] = float64(sched.Percentile(99)) / 1e3
	}
	delete(params, "cpu_scope")
	if ol.cpuOK && ol.completed > 0 {
		params["cpu_scope"] = cpuScope(cfg.StoreInProcess, l)
	}
	out := cfg.Run.Result(string(l.info.Used), OpenScenario(c.op, size, c.conc, r), results.Open, c.conc, rec, ol.elapsed, params)
	if ol.cpuOK && ol.completed > 0 {
		out.SetMeasureRounds("cpu_us_per_op", float64(ol.cpu.Nanoseconds())/1e3/float64(ol.completed), results.UnitUSPerOp, results.Lower, ol.roundCPU)
	}
	if ol.elapsed > 0 {
		out.SetMeasure("achieved_rate", achieved, results.UnitOpsPerSec, results.Higher)
	}
	if spec(c.op).moves && ol.elapsed > 0 {
		out.SetMeasure("mib_s", float64(rec.Count())*float64(size)/ol.elapsed.Seconds()/(1<<20), results.UnitMiBPerSec, results.Higher)
	}
	out.Control = cfg.Control
	out.Transport = string(l.info.Used)
	out.TransportFallback = fallback
	level := c.level()
	level[bench.DimRate] = rate
	if r.OpsSec == 0 {
		level[bench.DimRatePct] = r.Pct
	}
	bench.Stamp(&out, spec(c.op).scenario, level)
	out.Rounds = len(ol.roundP50)
	out.RoundP50US, out.RoundOpsSec = ol.roundP50, ol.roundOps
	warm := ol.warmErrs
	out.WarmupErrors = &warm
	out.Resources = st.res
	if ol.firstErr != nil {
		out.FirstError = ol.firstErr.Error()
	}
	return out
}
