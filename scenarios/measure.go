package scenarios

import (
	"context"
	"fmt"
	"github.com/nordisk/katbench/internal/pacer"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// Op is one measured operation; i counts the worker's operations from 0.
type Op func(ctx context.Context, worker, i int) error

// Measurement is what a measuring loop produced.
type Measurement struct {
	Rec      *results.Recorder // merged over workers
	Elapsed  time.Duration     // wall time of the measured phase
	FirstErr error             // first failure, if any
	// WarmupErrors counts failures of the unrecorded warm-up; FirstErr
	// includes them when no measured operation failed.
	WarmupErrors int64
	// Counters is what the process counted over the measured phase, and
	// CountedOps the operations (successful or not) that phase did.
	Counters   results.CounterDelta
	CountedOps int64
}

// errHolder keeps the first error seen by any worker.
type errHolder struct {
	once sync.Once
	err  error
}

func (h *errHolder) set(err error) { h.once.Do(func() { h.err = err }) }

// Latency runs op on one goroutine, closed loop: first for the warmup
// duration (at least minWarmup operations, at most maxWarmup), unrecorded,
// then n recorded times. Each operation is timed on its own; the clock reads
// are the only harness work inside the timed region.
func Latency(ctx context.Context, op Op, warmup time.Duration, minWarmup, maxWarmup, n int) Measurement {
	rec := results.NewRecorder()
	var eh, warmErr errHolder
	var warmErrs int64
	w := 0
	for deadline := time.Now().Add(warmup); w < maxWarmup && ctx.Err() == nil; w++ {
		if w >= minWarmup && time.Now().After(deadline) {
			break
		}
		if err := op(ctx, 0, w); err != nil {
			warmErrs++
			warmErr.set(fmt.Errorf("warm-up: %w", err))
		}
	}
	live := liveFrom(ctx).batch()
	endWindow := beginWindow(ctx)
	c0 := results.SnapshotFrom(ctx)
	start := time.Now()
	done := int64(0)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		t0 := time.Now()
		err := op(ctx, 0, w+i)
		d := time.Since(t0)
		done++
		live.op(d, err)
		if err != nil {
			rec.Error()
			eh.set(err)
			continue
		}
		rec.Record(d)
	}
	live.flush()
	m := Measurement{Rec: rec, Elapsed: time.Since(start), FirstErr: eh.err, WarmupErrors: warmErrs, CountedOps: done}
	m.Counters.Add(c0, results.SnapshotFrom(ctx))
	endWindow()
	if m.FirstErr == nil {
		m.FirstErr = warmErr.err
	}
	return m
}

// Throughput runs op on threads goroutines, closed loop, for warmup and then
// for d; only the second phase is recorded. Every worker owns its recorder;
// they are merged at the end, so percentiles are never averaged.
func Throughput(ctx context.Context, op Op, threads int, warmup, d time.Duration) Measurement {
	return ThroughputAtLeast(ctx, op, threads, warmup, d, 0)
}

// ThroughputAtLeast is Throughput whose measured phase lasts d and, beyond
// d, until at least minOps operations (successful or not) ended in it, or
// ctx ends: for operations so slow that d alone could pass without one.
// Elapsed is the phase's real length, so ops/s stays exact.
func ThroughputAtLeast(ctx context.Context, op Op, threads int, warmup, d time.Duration, minOps int64) Measurement {
	m, _ := throughputClasses(ctx, func(ctx context.Context, w, i int) (int, error) { return 0, op(ctx, w, i) }, 1, threads, warmup, d, minOps)
	return m
}

// ClassOp is an operation of one of several kinds (a mix's operations); it
// returns the kind it ran, in [0, classes).
type ClassOp func(ctx context.Context, worker, i int) (class int, err error)

// throughputClasses is ThroughputAtLeast for a ClassOp: it also returns
// each class's own merged recorder (a class out of range is an error of
// class 0).
func throughputClasses(ctx context.Context, op ClassOp, classes, threads int, warmup, d time.Duration, minOps int64) (Measurement, []*results.Recorder) {
	recs := make([][]*results.Recorder, threads)
	var warmErrs atomic.Int64
	var warmErr errHolder
	for w := range recs {
		recs[w] = make([]*results.Recorder, classes)
		for c := range recs[w] {
			recs[w][c] = results.NewRecorder()
		}
	}
	var (
		eh    errHolder
		phase atomic.Int32                   // phaseWarm, phaseMeasure, phaseDone
		ended = make([]paddedCount, threads) // per worker: operations that ended in the measured phase
		stop  atomic.Bool
		ready sync.WaitGroup
		wg    sync.WaitGroup
		begin = make(chan struct{})
		live  = liveFrom(ctx)
	)
	for w := range threads {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			rec := recs[w]
			live := live.batch()
			defer live.flush()
			ready.Done()
			<-begin
			for i := 0; !stop.Load() && ctx.Err() == nil; i++ {
				t0 := time.Now()
				class, err := op(ctx, w, i)
				dur := time.Since(t0)
				if class < 0 || class >= classes {
					class, err = 0, fmt.Errorf("operation of class %d, want 0..%d", class, classes-1)
				}
				switch phase.Load() {
				case phaseWarm:
					if err != nil {
						warmErrs.Add(1)
						warmErr.set(fmt.Errorf("warm-up: %w", err))
					}
					continue
				case phaseDone:
					continue
				}
				ended[w].n.Add(1) // the worker's own cache line: no sharing on the hot path
				live.op(dur, err) // nil without --metrics-addr: one branch
				if err != nil {
					rec[class].Error()
					eh.set(err)
					continue
				}
				rec[class].Record(dur)
			}
		}()
	}
	ready.Wait()
	close(begin)
	pacer.Sleep(ctx, warmup)
	// Operations that began during warm-up but end after this point are
	// recorded; their count is at most one per worker.
	endWindow := beginWindow(ctx)
	c0 := results.SnapshotFrom(ctx)
	phase.Store(phaseMeasure)
	start := time.Now()
	pacer.Sleep(ctx, d)
	for endedSum(ended) < minOps && ctx.Err() == nil {
		pacer.Sleep(ctx, time.Millisecond)
	}
	phase.Store(phaseDone)
	elapsed := time.Since(start)
	c1 := results.SnapshotFrom(ctx)
	endWindow()
	stop.Store(true)
	wg.Wait()
	byClass := make([]*results.Recorder, classes)
	for c := range byClass {
		byClass[c] = results.NewRecorder()
		for w := range recs {
			byClass[c].Merge(recs[w][c])
		}
	}
	m := Measurement{Rec: results.Merged(byClass...), Elapsed: elapsed, FirstErr: eh.err, WarmupErrors: warmErrs.Load(), CountedOps: endedSum(ended)}
	m.Counters.Add(c0, c1)
	if m.FirstErr == nil {
		m.FirstErr = warmErr.err
	}
	return m, byClass
}

// paddedCount is a counter alone on its cache line.
type paddedCount struct {
	n atomic.Int64
	_ [56]byte
}

func endedSum(c []paddedCount) int64 {
	var n int64
	for i := range c {
		n += c[i].n.Load()
	}
	return n
}

// Phases of a Throughput run.
const (
	phaseWarm int32 = iota
	phaseMeasure
	phaseDone
)
