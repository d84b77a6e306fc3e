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
	// Range is a ranged GET: RangeSize bytes at a seeded random offset of
	// an object of RangeObjectSize (a Parquet footer or column chunk read).
	Range Op = "range"
	// RangeSize is the bytes one ranged GET reads.
	RangeSize = 8 << 10
	// RangeObjectSize is the object the ranges are read from.
	RangeObjectSize = 64 << 20
	// DefaultSeed seeds the ranged GETs' offsets when Config.Seed is 0.
	DefaultSeed = 1
)

func init() {
	registerOp(Range, &opSpec{
		doc:    "8 KiB ranged GETs at seeded random offsets of a 64 MiB object",
		size:   RangeSize,
		object: func(int64) int64 { return RangeObjectSize },
		setup: func(w *worker, seed int64, index int) {
			w.buf = make([]byte, w.size+1)
			w.ranges = newRangeState(seed, index)
		},
		do:     (*worker).getRange,
		verify: (*worker).verifyRange,
		params: func(cfg Config, size int64, p map[string]any) {
			p["size_bytes"] = size
			p["object_bytes"] = int64(RangeObjectSize)
			p["range_seed"] = cfg.Seed
			p["range_offsets"] = "uniform over every byte offset the range fits at; worker w of each transport reads the same sequence (PCG seeded with range_seed, w)"
		},
		moves: true,
	})
}

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
