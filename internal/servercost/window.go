package servercost

import (
	"context"
	"time"
)

// Sources of a Window.
const (
	SourceProc       = "proc"
	SourcePrometheus = "prometheus"
)

// Window is what the server paid over one measured window. A value that
// could not be measured is nil, and Missing says why; a measured value
// may be 0.
type Window struct {
	Source string
	// CPU is user+system time of the server's and its store's processes;
	// StoreCPU the store's share of it.
	CPU, StoreCPU *time.Duration
	// RSSPeak is the server processes' largest resident set seen in the
	// window, RSSAfter the one at its end (bytes; the store's processes
	// are not in it).
	RSSPeak, RSSAfter *int64
	// StoreBytes is the store's bytes on disk at the end of the window.
	StoreBytes *int64
	// PIDs are the server's processes, StorePIDs the store's.
	PIDs, StorePIDs []int
	// Missing says, per absent field, why it was not measured.
	Missing map[string]string
}

// miss records why field is absent.
func (w *Window) miss(field, why string) {
	if w.Missing == nil {
		w.Missing = map[string]string{}
	}
	w.Missing[field] = why
}

// A Meter measures a server over measured windows. Begin starts a window,
// End closes it and returns what it cost; Begin after End starts the next.
// A Meter is used by one goroutine.
type Meter interface {
	Begin(ctx context.Context) error
	End(ctx context.Context) (Window, error)
}

// DefaultEvery is how often a meter samples memory inside a window.
const DefaultEvery = 50 * time.Millisecond

// peakSampler samples a value on a ticker until stopped and keeps the
// largest; safe for its own goroutine and one caller.
type peakSampler struct {
	stop chan struct{}
	done chan int64
}

// startPeak samples read every every until stop; read returning false is
// not counted.
func startPeak(every time.Duration, read func() (int64, bool)) *peakSampler {
	p := &peakSampler{stop: make(chan struct{}), done: make(chan int64, 1)}
	go func() {
		peak := int64(-1)
		sample := func() {
			if v, ok := read(); ok && v > peak {
				peak = v
			}
		}
		sample()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.done <- peak
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return p
}

// end stops the sampler and returns the peak it saw, -1 for none.
func (p *peakSampler) end() int64 {
	close(p.stop)
	return <-p.done
}
