package dataplane

import (
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// liveAllocator wraps an allocator and counts the bytes it has handed out
// and not yet had back: the buffers of batches somebody still references.
// A [Reader] with a bound waits on it, so a consumer that queues batches
// (iceberg-go's Transaction.Append queues up to 64 ahead of its writer)
// cannot make the generator run ahead of the writer. It is safe for
// concurrent use: batches are released on whatever goroutine drops them.
type liveAllocator struct {
	mem  memory.Allocator
	mu   sync.Mutex
	cond sync.Cond // signalled whenever live shrinks
	live int64
}

var _ memory.Allocator = (*liveAllocator)(nil)

func newLiveAllocator(mem memory.Allocator) *liveAllocator {
	a := &liveAllocator{mem: mem}
	a.cond.L = &a.mu
	return a
}

func (a *liveAllocator) Allocate(size int) []byte {
	b := a.mem.Allocate(size)
	a.add(int64(len(b)))
	return b
}

func (a *liveAllocator) Reallocate(size int, b []byte) []byte {
	old := len(b)
	b = a.mem.Reallocate(size, b)
	a.add(int64(len(b) - old))
	return b
}

func (a *liveAllocator) Free(b []byte) {
	n := len(b)
	a.mem.Free(b)
	a.add(-int64(n))
}

func (a *liveAllocator) add(n int64) {
	a.mu.Lock()
	a.live += n
	a.mu.Unlock()
	if n < 0 {
		a.cond.Broadcast()
	}
}

// Live is the bytes allocated and not yet freed.
func (a *liveAllocator) Live() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.live
}

// waitBelow blocks until at most limit bytes are live, or for at most
// patience, and reports whether the bound held. It never waits for good:
// a consumer that stops releasing batches (a failed write it abandoned, a
// future iceberg-go that keeps them) costs memory, never a hang.
func (a *liveAllocator) waitBelow(limit int64, patience time.Duration) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live <= limit {
		return true
	}
	expired := false
	t := time.AfterFunc(patience, func() {
		a.mu.Lock()
		expired = true
		a.mu.Unlock()
		a.cond.Broadcast()
	})
	defer t.Stop()
	for a.live > limit && !expired {
		a.cond.Wait()
	}
	return a.live <= limit
}
