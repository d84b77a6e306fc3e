package scenarios

import (
	"context"
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
	var eh errHolder
	w := 0
	for deadline := time.Now().Add(warmup); w < maxWarmup && ctx.Err() == nil; w++ {
		if w >= minWarmup && time.Now().After(deadline) {
			break
		}
		_ = op(ctx, 0, w)
	}
	start := time.Now()
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		t0 := time.Now()
		err := op(ctx, 0, w+i)
		d := time.Since(t0)
		if err != nil {
			rec.Error()
			eh.set(err)
			continue
		}
		rec.Record(d)
	}
	return Measurement{Rec: rec, Elapsed: time.Since(start), FirstErr: eh.err}
}

// Throughput runs op on threads goroutines, closed loop, for warmup and then
// for d; only the second phase is recorded. Every worker owns its recorder;
// they are merged at the end, so percentiles are never averaged.
func Throughput(ctx context.Context, op Op, threads int, warmup, d time.Duration) Measurement {
	recs := make([]*results.Recorder, threads)
	for w := range recs {
		recs[w] = results.NewRecorder()
	}
	var (
		eh        errHolder
		measuring atomic.Bool
		stop      atomic.Bool
		ready     sync.WaitGroup
		wg        sync.WaitGroup
		begin     = make(chan struct{})
	)
	for w := range threads {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			rec := recs[w]
			ready.Done()
			<-begin
			for i := 0; !stop.Load() && ctx.Err() == nil; i++ {
				t0 := time.Now()
				err := op(ctx, w, i)
				dur := time.Since(t0)
				if !measuring.Load() {
					continue
				}
				if err != nil {
					rec.Error()
					eh.set(err)
					continue
				}
				rec.Record(dur)
			}
		}()
	}
	ready.Wait()
	close(begin)
	sleepCtx(ctx, warmup)
	// Operations that began during warm-up but end after this point are
	// recorded; their count is at most one per worker.
	measuring.Store(true)
	start := time.Now()
	sleepCtx(ctx, d)
	measuring.Store(false)
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	return Measurement{Rec: results.Merged(recs...), Elapsed: elapsed, FirstErr: eh.err}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
