package pacer

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunHoldsRateAndCountsEverything(t *testing.T) {
	var calls int
	res, err := Run(context.Background(), Config{Rate: 2000, Duration: 500 * time.Millisecond, Warmup: 100 * time.Millisecond, Workers: 1},
		func(ctx context.Context, w int) error {
			calls++
			if calls%100 == 0 {
				return errors.New("every hundredth fails")
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if res.Issued != 1000 || res.Completed != 1000 {
		t.Fatalf("issued %d completed %d, want 1000", res.Issued, res.Completed)
	}
	if calls != 1200 {
		t.Fatalf("op ran %d times, want 200 warm-up + 1000", calls)
	}
	if res.Rec.Count()+res.Rec.Errors() != 1000 || res.Rec.Errors() < 9 || res.Rec.Errors() > 11 || res.WarmupErrors != 2 {
		t.Fatalf("recorded %d ok %d errors, %d warm-up errors", res.Rec.Count(), res.Rec.Errors(), res.WarmupErrors)
	}
	if res.Sched.Count() != 1000 {
		t.Fatalf("scheduling error recorded %d times", res.Sched.Count())
	}
}

// A target slower than the rate: the latencies, measured from the intended
// start, include the queueing, and the result says the rate was not kept.
func TestRunCorrectsCoordinatedOmission(t *testing.T) {
	stall := 20 * time.Millisecond
	res, err := Run(context.Background(), Config{Rate: 200, Duration: 300 * time.Millisecond, Workers: 1},
		func(ctx context.Context, w int) error { time.Sleep(stall); return nil })
	if err != nil {
		t.Fatal(err)
	}
	// 60 operations due over 300 ms, each takes 20 ms: the last starts
	// about 1.2 s − 0.3 s late. A closed loop would report ~20 ms at p99.
	if p99 := res.Rec.Percentile(99); p99 < 500*time.Millisecond {
		t.Fatalf("p99 %v: queueing behind the stall is not charged", p99)
	}
	if res.Kept(200) {
		t.Fatalf("achieved %.0f/s reported as keeping 200/s", res.Achieved())
	}
	if res.Achieved() > 60 {
		t.Fatalf("achieved %.0f/s, a 20 ms op on one worker cannot exceed 50/s", res.Achieved())
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	for _, c := range []Config{{Rate: 0, Duration: time.Second, Workers: 1}, {Rate: 10, Duration: 0, Workers: 1}, {Rate: 10, Duration: time.Second, Workers: 0}, {Rate: -1, Duration: time.Second, Workers: 1}} {
		if _, err := Run(context.Background(), c, func(context.Context, int) error { return nil }); !errors.Is(err, ErrBadRate) {
			t.Fatalf("%+v: %v", c, err)
		}
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := Run(ctx, Config{Rate: 100, Duration: time.Hour, Workers: 2}, func(context.Context, int) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(begin) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(begin))
	}
}

// Operations of several classes are recorded apart, and together in Rec.
func TestRunClassesSplitsByClass(t *testing.T) {
	var n int
	res, err := RunClasses(context.Background(), Config{Rate: 3000, Duration: 100 * time.Millisecond, Workers: 1, Classes: 3},
		func(ctx context.Context, w int) (int, error) {
			n++
			if n%3 == 2 {
				return 2, errors.New("class 2 fails")
			}
			return n % 3, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ByClass) != 3 || res.ByClass[0].Count() != 100 || res.ByClass[1].Count() != 100 || res.ByClass[2].Errors() != 100 || res.ByClass[2].Count() != 0 {
		t.Fatalf("by class: %d %d %d/%d errors", res.ByClass[0].Count(), res.ByClass[1].Count(), res.ByClass[2].Count(), res.ByClass[2].Errors())
	}
	if res.Rec.Count() != 200 || res.Rec.Errors() != 100 {
		t.Fatalf("whole: %d ok %d errors", res.Rec.Count(), res.Rec.Errors())
	}
	// A class out of range is an error, not a lost operation.
	res, err = RunClasses(context.Background(), Config{Rate: 1000, Duration: 10 * time.Millisecond, Workers: 1, Classes: 2},
		func(ctx context.Context, w int) (int, error) { return 5, nil })
	if err != nil || res.Rec.Errors() != 10 || res.FirstErr == nil {
		t.Fatalf("out-of-range class: %d errors, first %v, err %v", res.Rec.Errors(), res.FirstErr, err)
	}
}

// Poisson arrivals: exponential gaps with the rate's mean, the same for
// the same seed; constant arrivals are exactly i/rate.
func TestSchedule(t *testing.T) {
	c := schedule(Config{Rate: 1000})
	for i := int64(0); i < 5; i++ {
		if got := c(i); got != float64(i)*1e6 {
			t.Fatalf("constant offset(%d) = %v ns", i, got)
		}
	}
	const n = 20000
	draw := func(seed uint64) []float64 {
		p := schedule(Config{Rate: 1000, Arrivals: Poisson, Seed: seed})
		out := make([]float64, n)
		for i := range out {
			out[i] = p(int64(i))
		}
		return out
	}
	a, b, other := draw(3), draw(3), draw(4)
	if a[0] != 0 || a[n-1] != b[n-1] || a[n-1] == other[n-1] {
		t.Fatalf("poisson: first %v, same seed %v vs %v, other seed %v", a[0], a[n-1], b[n-1], other[n-1])
	}
	var sum, sq float64
	for i := 1; i < n; i++ {
		g := a[i] - a[i-1]
		if g < 0 {
			t.Fatalf("gap %d negative", i)
		}
		sum += g
		sq += g * g
	}
	mean := sum / (n - 1)
	cv := math.Sqrt(sq/(n-1)-mean*mean) / mean
	// Exponential: mean 1/rate (1 ms) and a coefficient of variation of 1;
	// 20,000 draws put both within a few per cent.
	if mean < 0.95e6 || mean > 1.05e6 || cv < 0.9 || cv > 1.1 {
		t.Fatalf("poisson gaps: mean %v ns, cv %.3f", mean, cv)
	}
	if _, err := Run(context.Background(), Config{Rate: 10, Duration: time.Second, Workers: 1, Arrivals: "bursty"}, func(context.Context, int) error { return nil }); !errors.Is(err, ErrBadRate) {
		t.Fatalf("unknown arrivals: %v", err)
	}
	res, err := Run(context.Background(), Config{Rate: 2000, Duration: 100 * time.Millisecond, Workers: 2, Arrivals: Poisson, Seed: 1},
		func(context.Context, int) error { return nil })
	if err != nil || res.Issued != 200 || res.Completed != 200 {
		t.Fatalf("poisson run: issued %d completed %d: %v", res.Issued, res.Completed, err)
	}
}

// The scheduling error is the scheduler's own: an operation that fell due
// while the scheduler waited for room in a full queue (the target's
// backlog) is charged only from when the room came.
func TestSchedErrorLeavesTheBacklogToTheTarget(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, c := range []struct {
		at, due, room time.Time
		want          time.Duration
	}{
		{ms(5), ms(3), time.Time{}, 2 * time.Millisecond}, // never blocked
		{ms(5), ms(3), ms(1), 2 * time.Millisecond},       // room came before it was due
		{ms(900), ms(3), ms(899), time.Millisecond},       // due during a 896 ms wait for room
		{ms(900), ms(900), ms(900), 0},                    // handed out as it fell due
	} {
		if got := schedError(c.at, c.due, c.room); got != c.want {
			t.Errorf("at %v due %v room %v: %v, want %v", c.at.Sub(t0), c.due.Sub(t0), c.room.Sub(t0), got, c.want)
		}
	}
}

// The scheduler yields before a pacing sleep when it has just handed work
// out, so a worker it woke runs before the sleep instead of after it. On
// one P the difference is whole: the raw sleep keeps the only P, so without
// the yield no operation handed out before a sleep could have started when
// the sleep begins. (The runtime checks its global queue first on one
// schedule in 61, so the check is on most sleeps, not all.)
func TestSchedulerLetsTheWokenWorkerRunBeforeItSleeps(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var started atomic.Int64
	var sleeps, ready int
	beforeSleep = func(issued int64) {
		if issued == 0 {
			return // nothing handed out yet
		}
		sleeps++
		if started.Load() == issued {
			ready++
		}
	}
	defer func() { beforeSleep = nil }()
	res, err := Run(context.Background(), Config{Rate: 1000, Duration: 100 * time.Millisecond, Workers: 4},
		func(context.Context, int) error { started.Add(1); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != 100 || started.Load() != 100 {
		t.Fatalf("completed %d, started %d, want 100", res.Completed, started.Load())
	}
	if sleeps < 10 || ready*2 < sleeps {
		t.Fatalf("the handed-out operations had all started at %d of %d pacing sleeps, want most", ready, sleeps)
	}
	t.Logf("all handed-out operations started before %d of %d sleeps", ready, sleeps)
}
