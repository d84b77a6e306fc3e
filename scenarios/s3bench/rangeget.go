package s3bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/minio/minio-go/v7"
)

// The ranged GET: what an engine reading Parquet does, a small range of a
// large object at an offset it cannot predict.
const (
	// RangeSize is the bytes one ranged GET reads.
	RangeSize = 8 << 10
	// RangeObjectSize is the object the ranges are read from.
	RangeObjectSize = 64 << 20
	// DefaultSeed seeds the ranged GETs' offsets when Config.Seed is 0.
	DefaultSeed = 1
)

// rangeState is a ranged-GET worker's own: its offset generator and the
// offset of its last request, for verify. Owned by the worker's goroutine.
type rangeState struct {
	rng *rand.Rand
	off int64
}

// newRangeState seeds worker w's offsets from seed, so worker w of every
// transport reads the same offsets in the same order.
func newRangeState(seed int64, w int) *rangeState {
	return &rangeState{rng: rand.New(rand.NewPCG(uint64(seed), uint64(w)))}
}

// getRange reads RangeSize bytes at the next offset (any byte offset at
// which the range fits the object) into the worker's buffer and checks the
// body ends there.
func (w *worker) getRange(ctx context.Context) error {
	off := w.ranges.rng.Int64N(int64(len(w.payload)) - w.size + 1)
	w.ranges.off = off
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, off+w.size-1); err != nil {
		return fmt.Errorf("GET %s range %d: %w", w.key, off, err)
	}
	body, _, _, err := w.core.GetObject(ctx, w.bucket, w.key, opts)
	if err != nil {
		return fmt.Errorf("GET %s range %d+%d: %w", w.key, off, w.size, err)
	}
	defer body.Close()
	if _, err := io.ReadFull(body, w.buf[:w.size]); err != nil {
		return fmt.Errorf("GET %s range %d+%d: read: %w", w.key, off, w.size, err)
	}
	return w.expectEOF(body)
}

// verifyRange compares the last range read with the object's bytes there.
func (w *worker) verifyRange() error {
	off := w.ranges.off
	if !bytes.Equal(w.buf[:w.size], w.payload[off:off+w.size]) {
		return fmt.Errorf("GET %s range %d+%d: %w", w.key, off, w.size, errCorrupt)
	}
	return nil
}
