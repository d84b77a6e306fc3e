// Package pacer issues operations at a constant arrival rate — an open
// loop — and times each one from its intended start, so a server that
// stalls is charged for every operation that should have started during
// the stall (coordinated omission corrected), not only the one in flight.
//
// The schedule is fixed before anything runs: operation i is due at
// start + i/rate. A scheduler goroutine hands due operations to a pool of
// workers; when the workers cannot keep up the queue grows, the latencies
// (measured from the intended start) grow with it, and the achieved rate
// falls below the requested one — which the result says, instead of the
// loop silently turning closed.
package pacer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/nordisk/katbench/internal/phold"
	"github.com/nordisk/katbench/internal/results"
)

// The scheduler sleeps through gaps longer than sleepMin, waking
// sleepMargin early, and yields through shorter ones: a sleep on this
// kernel wakes up to tens of microseconds late.
const (
	sleepMin    = 100 * time.Microsecond
	sleepMargin = 40 * time.Microsecond
)

// ErrBadRate is returned for a rate, duration or worker count that cannot
// be scheduled.
var ErrBadRate = errors.New("bad open-loop parameters")

// Op is one operation; worker is the index of the worker running it.
type Op func(ctx context.Context, worker int) error

// ClassOp is one operation of one of Config.Classes kinds (a mix's
// operations); it returns which kind it ran, in [0, Classes), so each kind
// gets its own histogram.
type ClassOp func(ctx context.Context, worker int) (class int, err error)

// Arrivals is how due times are spaced.
type Arrivals string

// The arrival processes.
const (
	// Constant: operation i is due at start + i/rate.
	Constant Arrivals = "constant"
	// Poisson: gaps between due times are exponentially distributed with
	// mean 1/rate, drawn from Config.Seed: bursts as independent clients
	// make them.
	Poisson Arrivals = "poisson"
)

// Config shapes an open-loop run.
type Config struct {
	Rate     float64       // operations per second to start, > 0
	Duration time.Duration // how long operations are issued
	Warmup   time.Duration // issued at Rate before, unrecorded (errors counted)
	// Workers bound the operations in flight; a due operation waits in the
	// queue for a free worker and that wait is part of its latency.
	Workers int
	// Arrivals spaces the due times ("" is Constant); Seed seeds Poisson
	// gaps, so a schedule is reproducible.
	Arrivals Arrivals
	Seed     uint64
	// Classes is how many kinds of operation RunClasses records apart (0
	// means 1).
	Classes int
}

// Result is what an open-loop run measured.
type Result struct {
	Rec *results.Recorder // latency from the intended start, ops that succeeded
	// Sched is the pacer's own scheduling error: when it handed each
	// operation out minus when it could have (the later of when the
	// operation was due and when the queue last had room). Waiting for a
	// free worker — in the queue, or for room in a full queue — is the
	// target's doing and is in Rec, not here.
	Sched *results.Recorder
	// ByClass is Rec split by the class a ClassOp returned (one entry for
	// Run): each kind's latencies and errors.
	ByClass   []*results.Recorder
	Issued    int64         // operations due in the measured window
	Completed int64         // of those, finished (successfully or not)
	Elapsed   time.Duration // from the first intended start to the last completion
	// WarmupErrors counts failures of the unrecorded warm-up.
	WarmupErrors int64
	FirstErr     error
}

// Achieved is the completion rate over the measured window, ops/s.
func (r Result) Achieved() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Completed) / r.Elapsed.Seconds()
}

// Kept reports whether the run achieved at least 95 % of rate: below
// that, the target could not keep up and the loop was not really open.
func (r Result) Kept(rate float64) bool { return r.Achieved() >= 0.95*rate }

// schedule returns the due times of cfg's operations, in ns after the
// start: offset(i) is i/rate exactly for Constant (no drift from adding
// up gaps), a running sum of exponential gaps drawn from cfg.Seed for
// Poisson. offset must be called for i = 0, 1, 2, … in order.
func schedule(cfg Config) (offset func(i int64) float64) {
	perOp := float64(time.Second) / cfg.Rate
	if cfg.Arrivals != Poisson {
		return func(i int64) float64 { return float64(i) * perOp }
	}
	gaps := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	var at float64
	return func(int64) float64 {
		t := at
		at += gaps.ExpFloat64() * perOp
		return t
	}
}

// yieldBeforeSleep turns the scheduler's yield before a pacing sleep on;
// off only in BenchmarkOpenLoopHandoff, which measures what it saves.
var yieldBeforeSleep = true

// sleepWithinBudget makes the pacing sleep take a place of the process's
// budget of P-holding waits (internal/phold) and let its P go when none is
// free. Off: measured against versitygw it turned io_uring's p99 at 75 %
// of the closed loop from below net/http's to above it, while against
// RustFS it kept a rate the raw sleep fell behind (docs/transport.md,
// "Who polls the network"). BenchmarkRoundTripWhilePacing turns it on.
var sleepWithinBudget bool

// beforeSleep, when set, is called by the scheduler before each pacing
// sleep with the number of operations handed out so far. A test seam, set
// before Run.
var beforeSleep func(issued int64)

type ticket struct {
	due time.Time
	// sched is the scheduler's own lateness in handing the ticket out.
	sched    time.Duration
	measured bool
}

// schedError is the scheduler's own lateness in handing out, at at, an
// operation due at due, when a send to the full queue last returned at
// room: the time since the later of the two. Before room the operation
// waited for the target to take one off the queue.
func schedError(at, due, room time.Time) time.Duration {
	if room.After(due) {
		return at.Sub(room)
	}
	return at.Sub(due)
}

// Run issues op at cfg.Rate for cfg.Warmup (unrecorded) and then
// cfg.Duration, and returns when every issued operation has finished or ctx
// is done. It is safe to call concurrently; each call owns its workers.
func Run(ctx context.Context, cfg Config, op Op) (Result, error) {
	cfg.Classes = 1
	return RunClasses(ctx, cfg, func(ctx context.Context, w int) (int, error) { return 0, op(ctx, w) })
}

// RunClasses is Run for operations of cfg.Classes kinds: each operation's
// latency (or error) is recorded in Result.ByClass under the class op
// returned, and in Result.Rec. A class out of range is recorded as an
// error of class 0.
func RunClasses(ctx context.Context, cfg Config, op ClassOp) (Result, error) {
	if cfg.Classes == 0 {
		cfg.Classes = 1
	}
	if !(cfg.Rate > 0) || cfg.Rate > 1e8 || cfg.Duration <= 0 || cfg.Warmup < 0 || cfg.Workers < 1 || cfg.Workers > 1<<16 ||
		cfg.Classes < 1 || cfg.Classes > 1<<10 || (cfg.Arrivals != "" && cfg.Arrivals != Constant && cfg.Arrivals != Poisson) {
		return Result{}, fmt.Errorf("%w: rate %v/s, duration %v, warm-up %v, workers %d, classes %d, arrivals %q",
			ErrBadRate, cfg.Rate, cfg.Duration, cfg.Warmup, cfg.Workers, cfg.Classes, cfg.Arrivals)
	}
	warmN := int64(cfg.Warmup.Seconds() * cfg.Rate)
	measN := max(int64(cfg.Duration.Seconds()*cfg.Rate), 1)
	total := warmN + measN

	queue := make(chan ticket, min(total, 1<<16))
	recs := make([][]*results.Recorder, cfg.Workers)
	scheds := make([]*results.Recorder, cfg.Workers)
	var (
		mu       sync.Mutex
		firstErr error
		warmErrs int64
		done     int64
		lastEnd  time.Time
		wg       sync.WaitGroup
	)
	for w := range cfg.Workers {
		recs[w], scheds[w] = make([]*results.Recorder, cfg.Classes), results.NewRecorder()
		for c := range recs[w] {
			recs[w][c] = results.NewRecorder()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, sched := recs[w], scheds[w]
			var n, werr int64
			var end time.Time
			var ferr error
			for t := range queue {
				class, err := op(ctx, w)
				end = time.Now()
				if class < 0 || class >= len(rec) {
					err = fmt.Errorf("pacer: operation of class %d, want 0..%d", class, len(rec)-1)
					class = 0
				}
				if !t.measured {
					if err != nil {
						werr++
					}
					continue
				}
				n++
				sched.Record(t.sched)
				if err != nil {
					rec[class].Error()
					if ferr == nil {
						ferr = err
					}
					continue
				}
				rec[class].Record(end.Sub(t.due))
			}
			mu.Lock()
			done += n
			warmErrs += werr
			if firstErr == nil {
				firstErr = ferr
			}
			if end.After(lastEnd) {
				lastEnd = end
			}
			mu.Unlock()
		}()
	}

	offset := schedule(cfg)
	holdLimit := phold.Limit()                // the pacing sleep's P-holding budget, read once: GOMAXPROCS(0) locks
	start := time.Now().Add(time.Millisecond) // the workers are ready by then
	measStart := start
	var issued int64
	// room is when a send to a full queue last returned: an operation due
	// before then waited for the target, not for the scheduler.
	var room time.Time
	next := offset(0)
	for issued < total && ctx.Err() == nil {
		now := float64(time.Since(start))
		// Every operation due by now goes out; the schedule never slips,
		// so a late scheduler shows up as scheduling error, not as a
		// lower requested rate.
		sent := false
	send:
		for ; issued < total && next <= now; issued++ {
			due := start.Add(time.Duration(next))
			if issued == warmN {
				measStart = due
			}
			t := ticket{due: due, sched: schedError(time.Now(), due, room), measured: issued >= warmN}
			select {
			case queue <- t:
			default:
				select {
				case queue <- t:
					room = time.Now()
				case <-ctx.Done():
					break send
				}
			}
			next = offset(issued + 1)
			sent = true
		}
		if issued >= total {
			break
		}
		wait := time.Until(start.Add(time.Duration(next)))
		if wait > sleepMin && sent && yieldBeforeSleep {
			// A worker a send just woke waits in this goroutine's P's run
			// queue, and the sleep below may keep that P: yield first, so
			// the worker runs now, here, instead of when the sleep ends or
			// a thread woken on another core steals it (measured:
			// BenchmarkOpenLoopHandoff).
			runtime.Gosched()
			wait = time.Until(start.Add(time.Duration(next)))
		}
		if wait > sleepMin {
			if h := beforeSleep; h != nil {
				h(issued)
			}
			preciseSleep(wait-sleepMargin, holdLimit) // the rest yielding, below
		} else if wait > 0 {
			runtime.Gosched()
		}
	}
	close(queue)
	wg.Wait()

	byClass := make([]*results.Recorder, cfg.Classes)
	for c := range byClass {
		byClass[c] = results.NewRecorder()
		for w := range recs {
			byClass[c].Merge(recs[w][c])
		}
	}
	res := Result{Rec: results.Merged(byClass...), ByClass: byClass, Sched: results.Merged(scheds...), Issued: measN,
		Completed: done, WarmupErrors: warmErrs, FirstErr: firstErr}
	if !lastEnd.IsZero() {
		res.Elapsed = lastEnd.Sub(measStart)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}
