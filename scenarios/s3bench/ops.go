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

// newWorker makes the worker for op: size is the cell's, payload the
// object's bytes (what a read must return, what a write sends); seed and
// index are for the op's own state (a ranged GET's offsets).
func newWorker(c *minio.Client, bucket, key string, op Op, size int64, payload []byte, seed int64, index int) *worker {
	w := &worker{client: c, core: minio.Core{Client: c}, bucket: bucket, key: key, op: op, size: size, payload: payload}
	if s := spec(op); s.setup != nil {
		s.setup(w, seed, index)
	}
	return w
}

// do performs one operation. A read leaves its body in the worker's
// buffer for verify.
func (w *worker) do(ctx context.Context) error { return spec(w.op).do(w, ctx) }

// verify compares the body of the worker's last successful read with the
// object's bytes; operations that read nothing have nothing to compare.
func (w *worker) verify() error {
	if v := spec(w.op).verify; v != nil {
		return v(w)
	}
	return nil
}

// sizeParam records a cell's size as params.size_bytes.
func sizeParam(_ Config, size int64, p map[string]any) { p["size_bytes"] = size }

func init() {
	registerOp(Head, &opSpec{
		doc:  "HEAD of a 4 KiB object",
		size: HeadSize, bare: true,
		object: func(size int64) int64 { return size },
		do: func(w *worker, ctx context.Context) error {
			info, err := w.client.StatObject(ctx, w.bucket, w.key, minio.StatObjectOptions{})
			if err != nil {
				return fmt.Errorf("HEAD %s: %w", w.key, err)
			}
			if info.Size != w.size {
				return fmt.Errorf("HEAD %s: size %d, want %d", w.key, info.Size, w.size)
			}
			return nil
		},
		params: func(_ Config, size int64, p map[string]any) { p["object_bytes"] = size },
	})
	registerOp(Get, &opSpec{
		doc:    "GET of a whole object of each --sizes, every 8th verified",
		object: func(size int64) int64 { return size },
		setup:  func(w *worker, _ int64, _ int) { w.buf = make([]byte, w.size+1) },
		do:     (*worker).get,
		verify: func(w *worker) error {
			if !bytes.Equal(w.buf[:w.size], w.payload) {
				return fmt.Errorf("GET %s: %w", w.key, errCorrupt)
			}
			return nil
		},
		params: sizeParam,
		moves:  true,
	})
	registerOp(Put, &opSpec{
		doc: "PUT of an object of each --sizes, a key per worker",
		do: func(w *worker, ctx context.Context) error {
			// A fresh reader each time: net/http may still be reading (and
			// discarding) a request body after RoundTrip returns, so a
			// reused reader would race with the next PUT. The payload is
			// read-only.
			if _, err := w.core.PutObject(ctx, w.bucket, w.key, bytes.NewReader(w.payload), w.size, "", "", putOptions); err != nil {
				return fmt.Errorf("PUT %s: %w", w.key, err)
			}
			return nil
		},
		params: sizeParam,
		moves:  true,
	})
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
