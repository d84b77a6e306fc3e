package uring

import (
	"errors"
	"io"
	"sync"
)

// errBodyClosed is returned by Read after Close, as net/http does.
var errBodyClosed = errors.New("uring: read on closed response body")

// body is a response body tied to its connection. The connection goes back
// to the pool only when the body was read to its end and closed; closing
// early (or any read error) closes the connection instead.
//
// Concurrency: Read must not be called concurrently with itself; Close may
// be called from any goroutine at any time, also during a Read, which it
// then aborts (via Ring.Interrupt) and the reader's return hands the conn
// back.
type body struct {
	c        *conn
	reusable bool // the exchange allows keep-alive (no Connection: close)

	// fixed: remaining bytes of a Content-Length body, read straight into
	// the caller's slice; -1 when src frames the body (chunked, until close).
	remaining int64
	src       io.Reader

	mu       sync.Mutex
	reading  bool
	closed   bool
	released bool
	done     bool  // saw the end of the body
	err      error // sticky read error
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, errBodyClosed
	}
	if b.done {
		b.mu.Unlock()
		return 0, io.EOF
	}
	if b.err != nil {
		b.mu.Unlock()
		return 0, b.err
	}
	b.reading = true
	b.mu.Unlock()

	n, err := b.read(p)
	if err == io.EOF {
		// The exchange is over: a context cancelled from here on must not
		// break the connection. (minio-go's GetObject cancels its context
		// before closing a body it read to the end; net/http, which pools
		// on EOF, is not disturbed by that either.)
		b.c.unwatch()
	}

	b.mu.Lock()
	b.reading = false
	if err != nil && err != io.EOF && b.closed {
		err = errBodyClosed // Close interrupted this read
	}
	if err != nil && err != io.EOF {
		b.err = err
	}
	if err == io.EOF {
		b.done = true
	}
	release := b.closed && !b.released // Close ran during the read
	if release {
		b.released = true
	}
	b.mu.Unlock()
	if release {
		b.c.finish(false)
	}
	return n, err
}

func (b *body) read(p []byte) (int, error) {
	c := b.c
	if b.remaining < 0 {
		return b.src.Read(p)
	}
	if b.remaining == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	var n int
	var err error
	if c.br.Buffered() > 0 {
		n, err = c.br.Read(p) // the rest of what arrived with the headers
	} else {
		n, err = c.readFull(p) // recv straight into the caller's slice, in one op
	}
	b.remaining -= int64(n)
	if b.remaining == 0 {
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Close ends the body. The connection is pooled only if the body had been
// read to its end without error.
func (b *body) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if b.reading {
		b.mu.Unlock()
		b.c.interrupter()() // the reader returns promptly and releases
		return nil
	}
	b.released = true
	reusable := b.reusable && b.done && b.err == nil
	b.mu.Unlock()
	b.c.finish(reusable)
	return nil
}
