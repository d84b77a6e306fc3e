// Package results turns measured operations into katbench's result lines:
// HdrHistogram recorders, the JSONL record with host and build provenance,
// history files and the human side-by-side table.
package results

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 ns to 100 s at 3 significant digits.
const (
	minValue = 1
	maxValue = int64(100 * time.Second)
	sigFigs  = 3
)

// Recorder records the service times of one worker in nanoseconds.
//
// A Recorder is not safe for concurrent use: give each worker its own and
// Merge them when the workers are done. Recording is a few array writes and
// never allocates, so it cannot distort sub-microsecond operations.
type Recorder struct {
	h      *hdrhistogram.Histogram
	errors int64
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{h: hdrhistogram.New(minValue, maxValue, sigFigs)}
}

// Record adds one successful operation that took d. Values outside the
// histogram's range are clamped, never dropped.
func (r *Recorder) Record(d time.Duration) {
	v := int64(d)
	if v < minValue {
		v = minValue
	} else if v > maxValue {
		v = maxValue
	}
	_ = r.h.RecordValue(v) // cannot fail: v is in range
}

// Error counts one failed operation. Failures are never recorded as latencies.
func (r *Recorder) Error() { r.errors++ }

// Errors returns how many failures were counted.
func (r *Recorder) Errors() int64 { return r.errors }

// Count returns how many successful operations were recorded.
func (r *Recorder) Count() int64 { return r.h.TotalCount() }

// Merge adds everything o recorded into r.
func (r *Recorder) Merge(o *Recorder) {
	r.h.Merge(o.h)
	r.errors += o.errors
}

// Percentile returns the value at quantile q (0–100) as a duration.
func (r *Recorder) Percentile(q float64) time.Duration {
	return time.Duration(r.h.ValueAtQuantile(q))
}

// Merged returns a new recorder holding the union of rs.
func Merged(rs ...*Recorder) *Recorder {
	out := NewRecorder()
	for _, r := range rs {
		out.Merge(r)
	}
	return out
}

// EachValue calls f for every recorded value range (its highest value and
// how many operations fell in it), lowest first.
func (r *Recorder) EachValue(f func(upTo time.Duration, n int64)) {
	for _, b := range r.h.Distribution() {
		if b.Count > 0 {
			f(time.Duration(b.To), b.Count)
		}
	}
}
