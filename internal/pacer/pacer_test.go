package pacer

import (
	"context"
	"errors"
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
