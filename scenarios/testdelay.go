package scenarios

import (
	"context"
	"time"
)

// TestDelay is a fixed wait added to every measured operation of one
// target's scenarios (never the control), so a known slowdown can be
// injected to measure how well a comparison finds it. It is for
// calibration only: a real run leaves it zero, and then no operation is
// wrapped at all.
//
// A TestDelay is a value; it is safe for concurrent use.
type TestDelay struct {
	// Per is the wait per operation; 0 disables the delay.
	Per time.Duration
	// Target is the competitor it applies to; "" means every target.
	Target string
}

// applies reports whether the delay slows scenario on target: never a
// control scenario.
func (d TestDelay) applies(target, scenario string) bool {
	sc, _ := byName.Lookup(scenario)
	return d.Per > 0 && !sc.Control && (d.Target == "" || d.Target == target)
}

// wrap returns op unchanged when the delay is off, else op followed by a
// busy wait of d.Per. The wait spins on the clock rather than sleeping:
// a timer's slack (tens of µs on Linux) would make a small delay neither
// fixed nor small.
func (d TestDelay) wrap(op Op) Op {
	if d.Per <= 0 {
		return op
	}
	per := d.Per
	return func(ctx context.Context, worker, i int) error {
		err := op(ctx, worker, i)
		for t0 := time.Now(); time.Since(t0) < per; {
		}
		return err
	}
}
