package disturb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// neighbourChunk is the size of one write of the neighbour.
const neighbourChunk = 1 << 20

// NeighbourConfig says what background I/O a run has beside it.
type NeighbourConfig struct {
	// Dir is the directory the neighbour writes its file in, created if
	// missing; put it in the run's work directory, on the file system the
	// catalogs write to. The file is removed when the neighbour stops.
	Dir string
	// Size is the size of the file written over and over, in bytes (> 0).
	Size int64
	// Rate caps the write rate in bytes per second; 0 writes as fast as
	// the file system takes it.
	Rate int64
}

// Validate reports a config the neighbour cannot run.
func (c NeighbourConfig) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("background I/O: no directory")
	case c.Size <= 0:
		return fmt.Errorf("background I/O: size %d: want more than 0 bytes", c.Size)
	case c.Rate < 0:
		return fmt.Errorf("background I/O: rate %d: want 0 (unthrottled) or more bytes/s", c.Rate)
	}
	return nil
}

// Neighbour is background I/O beside a run: one goroutine writing a file
// of Size bytes through a descriptor of its own, in 1 MiB writes, at
// most Rate bytes/s, never syncing, then removing it and writing it
// again, until it is stopped — a neighbour copying a large file onto the
// same file system, whose dirty pages a whole-file-system flush (syncfs)
// must write too and a flush of one's own files need not.
//
// A Neighbour is safe for concurrent use: Written, Stamp and Sink may be
// called while it runs; Stop may be called more than once.
type Neighbour struct {
	cfg   NeighbourConfig
	path  string
	start time.Time

	written atomic.Int64 // bytes written so far
	files   atomic.Int64 // files completed so far

	cancel context.CancelFunc
	done   chan struct{}
	err    error // the writer's error; read after done is closed
	once   sync.Once
}

// StartNeighbour starts the neighbour of cfg. It stops, and removes its
// file (and cfg.Dir, when it made it and it is empty), when ctx ends or
// Stop is called.
func StartNeighbour(ctx context.Context, cfg NeighbourConfig) (*Neighbour, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(cfg.Dir)
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("background I/O: %w", err)
	}
	n := &Neighbour{cfg: cfg, path: filepath.Join(cfg.Dir, "neighbour.bin"), start: time.Now(), done: make(chan struct{})}
	ctx, n.cancel = context.WithCancel(ctx)
	go func() {
		defer close(n.done)
		err := n.run(ctx)
		if rerr := os.Remove(n.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("background I/O: %w", rerr))
		}
		if errors.Is(statErr, fs.ErrNotExist) {
			_ = os.Remove(cfg.Dir) // made for the file; left if something else is in it
		}
		n.err = err
	}()
	return n, nil
}

// Path is the file the neighbour writes.
func (n *Neighbour) Path() string { return n.path }

// Written returns the bytes written so far.
func (n *Neighbour) Written() int64 { return n.written.Load() }

// Done is closed once the writer stopped and its file is removed.
func (n *Neighbour) Done() <-chan struct{} { return n.done }

// Stop stops the writer, waits for it and removes its file. It returns
// the error that stopped the writer early (a full disk, say), if any: the
// run then did not have the background it claims.
func (n *Neighbour) Stop() error {
	n.once.Do(n.cancel)
	<-n.done
	return n.err
}

// run writes the file over and over until ctx ends.
func (n *Neighbour) run(ctx context.Context) error {
	buf := make([]byte, neighbourChunk)
	for i := range buf {
		buf[i] = byte(i*131 + 7) // not all zeros: nothing below may skip it
	}
	for ctx.Err() == nil {
		if err := n.writeFile(ctx, buf); err != nil {
			return err
		}
		if ctx.Err() == nil {
			n.files.Add(1)
		}
		if err := os.Remove(n.path); err != nil {
			return fmt.Errorf("background I/O: %w", err)
		}
	}
	return nil
}

// writeFile writes one file of cfg.Size bytes, pacing the writes to
// cfg.Rate, and stops early when ctx ends.
func (n *Neighbour) writeFile(ctx context.Context, buf []byte) error {
	f, err := os.OpenFile(n.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("background I/O: %w", err)
	}
	var left = n.cfg.Size
	for left > 0 && ctx.Err() == nil {
		if wait := neighbourWait(n.written.Load(), n.cfg.Rate, time.Since(n.start)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				continue
			case <-t.C:
			}
		}
		chunk := buf[:min(int64(len(buf)), left)]
		w, err := f.Write(chunk)
		n.written.Add(int64(w))
		left -= int64(w)
		if err != nil {
			_ = f.Close()
			return fmt.Errorf("background I/O: write %s: %w", n.path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("background I/O: close %s: %w", n.path, err)
	}
	return nil
}

// neighbourWait is how long a writer that has written bytes in elapsed
// time must wait before its next write to keep to rate bytes/s (0: no
// limit).
func neighbourWait(written, rate int64, elapsed time.Duration) time.Duration {
	if rate <= 0 {
		return 0
	}
	due := time.Duration(float64(written) / float64(rate) * float64(time.Second))
	return max(due-elapsed, 0)
}

// Params are what shaped the background I/O, for every line of the run.
func (n *Neighbour) Params() map[string]any {
	rate := "unthrottled"
	if n.cfg.Rate > 0 {
		rate = fmt.Sprintf("%.0f MiB/s", float64(n.cfg.Rate)/(1<<20))
	}
	return map[string]any{
		"background_io": fmt.Sprintf("a neighbour writing a %d MiB file over and over (1 MiB writes, no sync, removed and written again) at %s, on the run's file system",
			n.cfg.Size>>20, rate),
		"background_io_bytes":  n.cfg.Size,
		"background_io_rate_b": n.cfg.Rate,
	}
}

// Stamp records on r what the neighbour did from its start until now: the
// bytes it wrote and their mean rate.
func (n *Neighbour) Stamp(r *results.Record) {
	written := n.written.Load()
	r.SetMeasure("background_io_written", float64(written), results.UnitBytes, "")
	if s := time.Since(n.start).Seconds(); s > 0 {
		r.SetMeasure("background_io_mib_s", float64(written)/(1<<20)/s, results.UnitMiBPerSec, "")
	}
}

// Sink returns a sink that stamps every record (see Stamp) and its params
// (see Params) before writing it to next.
func (n *Neighbour) Sink(next results.Sink) results.Sink {
	return results.SinkFunc(func(r results.Record) error {
		if r.Skipped == "" {
			n.Stamp(&r)
		}
		p := make(map[string]any, len(r.Params)+5)
		for k, v := range r.Params {
			p[k] = v
		}
		for k, v := range n.Params() {
			p[k] = v
		}
		r.Params = p
		return next.Write(r)
	})
}
