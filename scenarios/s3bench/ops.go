package s3bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
)

// errShortBody reports a GET body whose length differs from the object's.
var errShortBody = errors.New("GET body length differs from the object size")

// errCorrupt reports a GET body whose bytes differ from what was stored.
var errCorrupt = errors.New("GET body differs from the stored object")

// putOptions are the PUT options for every transport alike: known size, no
// MD5, unsigned payload (no SHA-256 over the body, no streaming signature),
// so the signing cost is the same small constant for both and the bytes
// travel with a plain Content-Length.
var putOptions = minio.PutObjectOptions{
	DisableContentSha256: true,
	SendContentMd5:       false,
	DisableMultipart:     true,
}

// worker does one kind of operation against one key. Each worker belongs to
// one goroutine: its buffers are reused without locking.
type worker struct {
	client *minio.Client
	core   minio.Core
	bucket string
	key    string
	op     Op
	size   int64
	// payload is the object's content: what PUT sends and GET must return.
	// Shared between workers, never written.
	payload []byte
	// buf receives GET bodies; one extra byte detects an over-long body.
	buf []byte
	// ranges is a ranged-GET worker's offset state (nil for other ops).
	ranges *rangeState
}

// newWorker makes the worker for op. For Range, size is the range's and
// payload the whole object's; seed and index choose its offsets.
func newWorker(c *minio.Client, bucket, key string, op Op, size int64, payload []byte, seed int64, index int) *worker {
	w := &worker{client: c, core: minio.Core{Client: c}, bucket: bucket, key: key, op: op, size: size, payload: payload}
	switch op {
	case Get:
		w.buf = make([]byte, size+1)
	case Range:
		w.buf = make([]byte, size+1)
		w.ranges = newRangeState(seed, index)
	}
	return w
}

// do performs one operation. A GET leaves its body in the worker's buffer
// for verify.
func (w *worker) do(ctx context.Context) error {
	switch w.op {
	case Head:
		info, err := w.client.StatObject(ctx, w.bucket, w.key, minio.StatObjectOptions{})
		if err != nil {
			return fmt.Errorf("HEAD %s: %w", w.key, err)
		}
		if info.Size != w.size {
			return fmt.Errorf("HEAD %s: size %d, want %d", w.key, info.Size, w.size)
		}
		return nil
	case Get:
		return w.get(ctx)
	case Range:
		return w.getRange(ctx)
	case Put:
		// A fresh reader each time: net/http may still be reading (and
		// discarding) a request body after RoundTrip returns, so a reused
		// reader would race with the next PUT. The payload is read-only.
		if _, err := w.core.PutObject(ctx, w.bucket, w.key, bytes.NewReader(w.payload), w.size, "", "", putOptions); err != nil {
			return fmt.Errorf("PUT %s: %w", w.key, err)
		}
		return nil
	default:
		return fmt.Errorf("%w %q", ErrBadOp, w.op)
	}
}

// get reads the body with io.ReadFull into the preallocated buffer, then
// checks that the body ends exactly there, so the transport's path into a
// caller buffer of known size is what is measured.
func (w *worker) get(ctx context.Context) error {
	body, _, _, err := w.core.GetObject(ctx, w.bucket, w.key, minio.GetObjectOptions{})
	if err != nil {
		return fmt.Errorf("GET %s: %w", w.key, err)
	}
	defer body.Close()
	if _, err := io.ReadFull(body, w.buf[:w.size]); err != nil {
		return fmt.Errorf("GET %s: read %d bytes: %w", w.key, w.size, err)
	}
	return w.expectEOF(body)
}

// expectEOF checks that body, read for w.size bytes, ends exactly there.
func (w *worker) expectEOF(body io.Reader) error {
	// The body must end exactly here. A reader may return (0, nil) once.
	extra := w.buf[w.size:]
	n, err := body.Read(extra)
	if n == 0 && err == nil {
		n, err = body.Read(extra)
	}
	switch {
	case n != 0:
		return fmt.Errorf("GET %s: %w (more than %d bytes)", w.key, errShortBody, w.size)
	case err != io.EOF:
		return fmt.Errorf("GET %s: after %d bytes, want EOF: %v", w.key, w.size, err)
	}
	return nil
}

// verify compares the body of the worker's last successful GET with the
// object's bytes; other operations have nothing to compare.
func (w *worker) verify() error {
	if w.op == Range {
		return w.verifyRange()
	}
	if w.op == Get && !bytes.Equal(w.buf[:w.size], w.payload) {
		return fmt.Errorf("GET %s: %w", w.key, errCorrupt)
	}
	return nil
}
