package icebergio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/minio/minio-go/v7"
)

// writer streams one object (see FS.Create). It holds the part being
// filled and at most one part being uploaded. Not safe for concurrent use.
type writer struct {
	fs  *FS
	loc location

	buf      []byte // the part being filled
	uploadID string // "" until the first part is sent
	parts    []minio.CompletePart
	inflight chan partResult // the part being uploaded, or nil
	upBuf    []byte          // its bytes, reusable once it is done

	err      error // first failure; sticky
	closed   bool
	closeErr error
}

type partResult struct {
	part minio.CompletePart
	err  error
}

// Write appends p. A full part is sent (in the background) only when more
// bytes follow it, so a file of exactly one part is still a single PUT.
func (w *writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, &fs.PathError{Op: "write", Path: w.loc.String(), Err: ErrClosed}
	}
	if w.err != nil {
		return 0, w.err
	}
	size := w.fs.partSize
	written := 0
	for len(p) > 0 {
		if len(w.buf) == size {
			if err := w.sendPart(); err != nil {
				return written, err
			}
		}
		n := min(size-len(w.buf), len(p))
		w.grow(n)
		w.buf = append(w.buf, p[:n]...)
		p = p[n:]
		written += n
	}
	return written, nil
}

// smallFileLimit is the size up to which a file's buffer grows by doubling;
// past it the writer takes a whole part buffer from the pool.
const smallFileLimit = 256 << 10

// grow makes room for n more bytes without ever exceeding one part: small
// files (metadata, manifests) stay small, large ones get a pooled part
// buffer once.
func (w *writer) grow(n int) {
	need := len(w.buf) + n
	if need <= cap(w.buf) {
		return
	}
	var nb []byte
	if c := max(2*cap(w.buf), need, 4096); c <= smallFileLimit && c < w.fs.partSize {
		nb = make([]byte, len(w.buf), c)
	} else {
		nb = getPart(w.fs.partSize)[:len(w.buf)]
	}
	copy(nb, w.buf)
	putPart(w.buf)
	w.buf = nb
}

// partPools recycle part buffers across writers, one pool per part size
// (so a run appending many large files allocates its parts once).
var partPools sync.Map // int → *sync.Pool of *[]byte

func getPart(size int) []byte {
	p, _ := partPools.LoadOrStore(size, &sync.Pool{})
	if b, ok := p.(*sync.Pool).Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

// putPart returns b to its pool if it is a whole part buffer; smaller ones
// are left to the garbage collector.
func putPart(b []byte) {
	if cap(b) < MinPartSize {
		return
	}
	if p, ok := partPools.Load(cap(b)); ok {
		b = b[:0]
		p.(*sync.Pool).Put(&b)
	}
}

// ReadFrom copies r into the object through Write.
func (w *writer) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	return io.CopyBuffer(struct{ io.Writer }{w}, r, buf)
}

// sendPart starts the upload of the full buffer as the next part, after
// waiting for the previous one, and takes that one's buffer for filling.
func (w *writer) sendPart() error {
	ctx := context.Background()
	if w.uploadID == "" {
		id, err := w.fs.core.NewMultipartUpload(ctx, w.loc.bucket, w.loc.key, minio.PutObjectOptions{})
		if err != nil {
			w.err = w.fs.pathError("write", w.loc, err)
			return w.err
		}
		w.uploadID = id
	}
	if err := w.wait(); err != nil {
		return err
	}
	part, num := w.buf, len(w.parts)+1
	if w.upBuf == nil {
		w.upBuf = getPart(w.fs.partSize)
	}
	w.buf, w.upBuf = w.upBuf[:0], part
	ch := make(chan partResult, 1)
	w.inflight = ch
	go func() {
		p, err := w.fs.core.PutObjectPart(ctx, w.loc.bucket, w.loc.key, w.uploadID, num,
			bytes.NewReader(part), int64(len(part)), minio.PutObjectPartOptions{})
		ch <- partResult{part: minio.CompletePart{PartNumber: num, ETag: p.ETag}, err: err}
	}()
	return nil
}

// wait collects the part in flight, if any.
func (w *writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	res := <-w.inflight
	w.inflight = nil
	if res.err != nil {
		w.err = w.fs.pathError("write", w.loc, res.err)
		return w.err
	}
	w.parts = append(w.parts, res.part)
	return nil
}

// Close finishes the object: one PUT if it never filled a part, else the
// last part and the multipart completion. On any failure the upload is
// aborted, nothing appears under the name, and the error is returned (by
// this and every later call).
func (w *writer) Close() error {
	if w.closed {
		return w.closeErr
	}
	w.closed = true
	w.closeErr = w.finish()
	// Every upload has returned (finish waits), so the buffers are free.
	putPart(w.buf)
	putPart(w.upBuf)
	w.buf, w.upBuf = nil, nil
	return w.closeErr
}

func (w *writer) finish() error {
	if w.err == nil && w.uploadID == "" {
		return w.fs.putObject(w.loc, w.buf)
	}
	if w.err == nil && len(w.buf) > 0 {
		_ = w.sendPart() // sets w.err on failure
	}
	if err := w.wait(); err != nil && w.err == nil {
		w.err = err
	}
	if w.err == nil {
		_, err := w.fs.core.CompleteMultipartUpload(context.Background(), w.loc.bucket, w.loc.key, w.uploadID, w.parts, minio.PutObjectOptions{})
		if err == nil {
			return nil
		}
		w.err = w.fs.pathError("write", w.loc, err)
	}
	if w.uploadID != "" {
		if err := w.fs.core.AbortMultipartUpload(context.Background(), w.loc.bucket, w.loc.key, w.uploadID); err != nil {
			return errors.Join(w.err, fmt.Errorf("abort multipart upload %s of %s: %w", w.uploadID, w.loc, err))
		}
	}
	return w.err
}
