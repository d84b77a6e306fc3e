package results

import (
	"errors"
	"fmt"
	"time"
)

// calibrationReads is how many clock pairs CalibrateClock times.
const calibrationReads = 20_000

// CalibrateClock measures the harness floor: the median time between two
// back-to-back clock reads, taken exactly as the measuring loops take them
// (time.Now, then time.Since, recorded through a Recorder). A measured
// latency can never be smaller; every line records it as
// clock_overhead_ns. It takes about a millisecond.
func CalibrateClock() time.Duration {
	rec := NewRecorder()
	for range calibrationReads {
		t0 := time.Now()
		rec.Record(time.Since(t0))
	}
	return rec.Percentile(50)
}

// ErrFailedOps is returned by CheckErrors when a line had failed
// operations.
var ErrFailedOps = errors.New("operations failed")

// CheckErrors returns an error wrapping ErrFailedOps naming the lines with
// failed operations (measured or in the warm-up), or nil when there are
// none or the run allowed them (--allow-errors, recorded on each line).
func CheckErrors(recs []Record) error {
	var bad []Record
	for _, r := range recs {
		if r.Skipped == "" && !r.AllowErrors && r.Failed() {
			bad = append(bad, r)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	r := bad[0]
	return fmt.Errorf("%w on %d line(s), first %s %s: %d of %d failed, %d in the warm-up: %s (--allow-errors accepts this and records it on the lines)",
		ErrFailedOps, len(bad), r.Target, r.Scenario, r.Errors, r.Errors+r.Ops, r.warmupErrors(), oneLine(r.FirstError))
}

// Failed reports whether any operation of the line failed, measured or in
// its warm-up.
func (r Record) Failed() bool { return r.Errors > 0 || r.warmupErrors() > 0 }

func (r Record) warmupErrors() int64 {
	if r.WarmupErrors == nil {
		return 0
	}
	return *r.WarmupErrors
}
