package dataplane

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// queueDepth drives r the way iceberg-go's Transaction.Append does: a
// producer goroutine retains each batch and queues it on a channel of 64,
// a slower consumer writes and releases them. It returns the most batches
// the consumer ever saw in existence at once (queued plus the one in hand)
// and the rows it received.
func queueDepth(t *testing.T, r *Reader) (maxDepth int, rows int64) {
	t.Helper()
	ch := make(chan arrow.RecordBatch, 64)
	go func() {
		defer close(ch)
		for r.Next() {
			rec := r.RecordBatch()
			rec.Retain()
			ch <- rec
		}
	}()
	for rec := range ch {
		time.Sleep(2 * time.Millisecond) // the writer is slower than the generator
		maxDepth = max(maxDepth, len(ch)+1)
		rows += rec.NumRows()
		rec.Release()
	}
	return maxDepth, rows
}

func TestReaderLimitLiveBoundsRunAhead(t *testing.T) {
	const n, batch = 40 * 256, 256
	for _, k := range []int{1, LiveBatches, 4} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		r, err := NewReader(mem, 3, 0, n, batch)
		if err != nil {
			t.Fatal(err)
		}
		r.LimitLive(k)
		depth, rows := queueDepth(t, r)
		r.Release()
		if depth > k {
			t.Errorf("LimitLive(%d): %d batches existed at once", k, depth)
		}
		if rows != n {
			t.Errorf("LimitLive(%d): consumer got %d rows, want %d", k, rows, n)
		}
		if k > 1 && r.WaitTime() <= 0 {
			t.Errorf("LimitLive(%d): Next never waited for the slow consumer", k)
		}
		mem.AssertSize(t, 0)
	}
}

// Without a limit the same consumer lets the generator fill the queue: the
// condition the bound exists for, and proof that queueDepth can see it.
func TestReaderUnboundedRunsAhead(t *testing.T) {
	r, err := NewReader(nil, 3, 0, 40*256, 256)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if depth, _ := queueDepth(t, r); depth < 10 {
		t.Errorf("unbounded reader: at most %d batches at once, want the queue to fill", depth)
	}
}

func TestLiveAllocatorCountsOutstandingBytes(t *testing.T) {
	a := newLiveAllocator(memory.DefaultAllocator)
	b := a.Allocate(100)
	b = a.Reallocate(300, b)
	c := a.Allocate(50)
	if got := a.Live(); got != 350 {
		t.Fatalf("live %d after allocating 300+50, want 350", got)
	}
	a.Free(b)
	a.Free(c)
	if got := a.Live(); got != 0 {
		t.Fatalf("live %d after freeing everything, want 0", got)
	}
}

// A consumer that keeps every batch (as one collecting the whole stream
// does) defeats the bound: Next must give up waiting and go on, counting
// the overruns, instead of hanging the append.
func TestReaderLimitLiveNeverHangs(t *testing.T) {
	old := liveWaitPatience
	liveWaitPatience = 20 * time.Millisecond
	t.Cleanup(func() { liveWaitPatience = old })
	const n, batch = 6 * 256, 256
	r, err := NewReader(nil, 3, 0, n, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	r.LimitLive(2)
	var kept []arrow.RecordBatch
	done := make(chan int64)
	go func() {
		var rows int64
		for r.Next() {
			rec := r.RecordBatch()
			rec.Retain()
			kept = append(kept, rec)
			rows += rec.NumRows()
		}
		done <- rows
	}()
	select {
	case rows := <-done:
		if rows != n {
			t.Errorf("got %d rows, want %d", rows, n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next blocked for good on a consumer that keeps its batches")
	}
	for _, rec := range kept {
		rec.Release()
	}
	// Batches 3..6 each found two or more kept batches alive.
	if got := r.Overruns(); got != 4 {
		t.Errorf("Overruns() = %d, want 4", got)
	}
}
