package scenarios

import (
	"sync"
	"testing"
	"time"
)

func TestReportElapsed(t *testing.T) {
	var mu sync.Mutex
	type call struct{ done, total int }
	var calls []call
	p := func(what string, done, total int) {
		if what != "warm-up (s)" {
			t.Errorf("what = %q", what)
		}
		mu.Lock()
		calls = append(calls, call{done, total})
		mu.Unlock()
	}
	stop := reportElapsed(p, "warm-up (s)", 2*time.Second)
	time.Sleep(2200 * time.Millisecond)
	stop()
	mu.Lock()
	defer mu.Unlock()
	if len(calls) < 3 {
		t.Fatalf("calls %v: want the start, at least one tick and the end", calls)
	}
	if calls[0] != (call{0, 2}) || calls[len(calls)-1] != (call{2, 2}) {
		t.Fatalf("calls %v: want to start at 0/2 and end at 2/2", calls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].done < calls[i-1].done || calls[i].total != 2 {
			t.Fatalf("calls %v: not monotonic within 0..2", calls)
		}
	}
	// After stop nothing more is reported.
	n := len(calls)
	mu.Unlock()
	time.Sleep(1100 * time.Millisecond)
	mu.Lock()
	if len(calls) != n {
		t.Fatalf("reports after stop: %v", calls[n:])
	}
	if stop := reportElapsed(nil, "x", time.Second); stop == nil {
		t.Fatal("nil stop for a nil Progress")
	} else {
		stop()
	}
}
