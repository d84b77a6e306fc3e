package phold

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestTryHoldStopsAtTheLimit(t *testing.T) {
	const limit = 3
	for i := range limit {
		if !TryHold(limit) {
			t.Fatalf("place %d of %d refused", i+1, limit)
		}
	}
	if TryHold(limit) {
		t.Fatalf("a place beyond the limit of %d was given", limit)
	}
	if got := Held(); got != limit {
		t.Fatalf("Held() = %d, want %d", got, limit)
	}
	Release()
	if !TryHold(limit) {
		t.Fatal("a released place was not given again")
	}
	for range limit {
		Release()
	}
	if got := Held(); got != 0 {
		t.Fatalf("Held() = %d after releasing every place, want 0", got)
	}
	if TryHold(0) {
		Release()
		t.Fatal("a place was given with a limit of 0 (a single P)")
	}
}

func TestConcurrentHoldersNeverPassTheLimit(t *testing.T) {
	const limit, workers, rounds = 2, 8, 2000
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				if !TryHold(limit) {
					continue
				}
				n := inside.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				inside.Add(-1)
				Release()
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m > limit || m < 1 {
		t.Fatalf("at most %d holders at once, want 1..%d", m, limit)
	}
	if got := Held(); got != 0 {
		t.Fatalf("Held() = %d after every holder released, want 0", got)
	}
}
