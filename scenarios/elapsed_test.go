package scenarios

import (
	"sync/atomic"
	"testing"
	"time"
)

// The phase's reports follow a clock the test moves: 0/2 at the start,
// whole seconds below the total on each tick, 2/2 at stop, and no tick
// taken after stop.
func TestReportElapsed(t *testing.T) {
	type call struct{ done, total int }
	calls := make(chan call, 8)
	p := func(what string, done, total int) {
		if what != "warm-up (s)" {
			t.Errorf("what = %q", what)
		}
		calls <- call{done, total}
	}
	var now atomic.Int64
	ticks := make(chan time.Time)
	stop := reportElapsedOn(p, "warm-up (s)", 2*time.Second, ticks, func() time.Duration { return time.Duration(now.Load()) })
	expect := func(want call) {
		t.Helper()
		if got := <-calls; got != want {
			t.Fatalf("report %v, want %v", got, want)
		}
	}
	expect(call{0, 2})
	for _, c := range []struct {
		at   time.Duration
		want call
	}{
		{1100 * time.Millisecond, call{1, 2}},
		{1900 * time.Millisecond, call{1, 2}},
		{5 * time.Second, call{1, 2}}, // never "done" before stop
	} {
		now.Store(int64(c.at))
		ticks <- time.Time{}
		expect(c.want)
	}
	stop()
	expect(call{2, 2})
	select {
	case ticks <- time.Time{}:
		t.Fatal("a tick was taken after stop")
	default:
	}
	select {
	case c := <-calls:
		t.Fatalf("a report after stop: %v", c)
	default:
	}

	if stop := reportElapsed(nil, "x", time.Second); stop == nil {
		t.Fatal("nil stop for a nil Progress")
	} else {
		stop()
	}
}
