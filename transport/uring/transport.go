package uring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultPoolSize is the keep-alive pool per host when Options.PoolSize is 0.
const DefaultPoolSize = 8

// DefaultIdleTimeout is Options.IdleTimeout's default, net/http's too.
const DefaultIdleTimeout = 90 * time.Second

// DefaultMaxResponseHeaderBytes is Options.MaxResponseHeaderBytes' default:
// the limit katbench's net/http transport is given (transport.NewHTTP).
const DefaultMaxResponseHeaderBytes = 1 << 20

// Options configures a Transport.
type Options struct {
	// PoolSize caps the connections per host, open and idle alike; 0 means
	// DefaultPoolSize. A request waits for a free connection beyond it.
	PoolSize int
	// DialTimeout bounds connection setup; 0 means only the context does.
	DialTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for the response headers once
	// the request is written; 0 means only the context does.
	ResponseHeaderTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle for longer; 0 means
	// DefaultIdleTimeout, < 0 means never. Independently of it, a
	// connection idle for a millisecond or more is checked before reuse
	// with a non-blocking peek, so one the server has closed is not used.
	IdleTimeout time.Duration
	// MaxResponseHeaderBytes bounds the bytes received while reading a
	// response's headers, every 1xx informational response before the final
	// one included — so an endless stream of "100 Continue" fails too —
	// like net/http's field of the same name without a Got1xxResponse
	// trace. 0 means DefaultMaxResponseHeaderBytes. Past it a request fails
	// with an error wrapping ErrResponseHeaderTooLarge.
	MaxResponseHeaderBytes int64
	// Wait picks how requests wait for completions; the zero value
	// (WaitAuto) is right outside of experiments (see ParseWait).
	Wait WaitMode
}

// Transport is an http.RoundTripper speaking HTTP/1.1 over plaintext TCP,
// with every socket operation done through io_uring (see the package doc).
//
// Concurrency: safe for concurrent use by any number of goroutines, like
// http.Transport. Each request runs on its caller's goroutine.
type Transport struct {
	opts Options

	skipPeek bool // tests only: reuse idle conns without the liveness peek

	mu    sync.Mutex
	pools map[string]*hostPool
}

var _ http.RoundTripper = (*Transport)(nil)

// NewTransport returns a Transport, or an error wrapping ErrUnavailable with
// the reason when io_uring cannot be used in this process.
func NewTransport(opts Options) (*Transport, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = DefaultPoolSize
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.MaxResponseHeaderBytes <= 0 {
		opts.MaxResponseHeaderBytes = DefaultMaxResponseHeaderBytes
	}
	if opts.Wait == waitSQPoll {
		// Start the shared submission thread now, so a kernel that refuses
		// SQPOLL is a fallback with a reason, not a failed first request.
		r, err := sqpollRing(1)
		if err != nil {
			return nil, err
		}
		closeRing(r)
	}
	return &Transport{opts: opts, pools: map[string]*hostPool{}}, nil
}

// CloseIdleConnections closes the idle keep-alive connections of every host.
func (t *Transport) CloseIdleConnections() {
	for _, p := range t.allPools() {
		p.closeIdle(false)
	}
}

// Close closes idle connections and refuses new requests with
// ErrPoolClosed; connections in use close when their body is closed.
func (t *Transport) Close() error {
	for _, p := range t.allPools() {
		p.closeIdle(true)
	}
	return nil
}

// WaitUsed says how requests to hostport wait for completions, with why
// when WaitAuto chose it ("hold: the server is in another process"), or
// "" before the first connection to it.
func (t *Transport) WaitUsed(hostport string) string {
	t.mu.Lock()
	p := t.pools[hostport]
	t.mu.Unlock()
	if p == nil {
		return ""
	}
	if p.wait != WaitAuto {
		return p.wait.String()
	}
	p.autoMu.Lock()
	defer p.autoMu.Unlock()
	return p.autoWhy // "" until the first dial
}

func (t *Transport) allPools() []*hostPool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*hostPool, 0, len(t.pools))
	for _, p := range t.pools {
		out = append(out, p)
	}
	return out
}

func (t *Transport) pool(hostport string) *hostPool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pools[hostport]
	if p == nil {
		p = newHostPool(hostport, t.opts, t.skipPeek)
		t.pools[hostport] = p
	}
	return p
}

// RoundTrip sends req and returns the response, whose Body the caller must
// read to the end and close for the connection to be reused.
//
// An idle connection is checked before reuse (see Options.IdleTimeout). A
// reused connection the server closed anyway (no response byte received) is
// retried once on a fresh connection when req is idempotent (GET, HEAD,
// OPTIONS, TRACE, or PUT/DELETE) and its body is absent, can be re-created
// with GetBody, or is an io.Seeker — also behind io.NopCloser, as minio-go
// sends it — which is sought back to where it stood; otherwise the error
// wraps ErrServerClosed. Cancelling req's context, or its deadline
// passing, ends the operation in flight and discards the connection.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	hostport, err := t.check(req)
	if err != nil {
		closeReqBody(req)
		return nil, err
	}
	ctx := req.Context()
	p := t.pool(hostport)
	fresh := false
	mark := markBody(req)
	for {
		c, err := p.get(ctx, fresh)
		if err != nil {
			closeReqBody(req)
			return nil, err
		}
		resp, err := t.exchange(ctx, c, req)
		if err == nil {
			return resp, nil
		}
		if !errors.Is(err, ErrServerClosed) || fresh {
			return nil, err
		}
		retry, rerr := rewind(req, mark)
		if rerr != nil {
			return nil, fmt.Errorf("uring: %s %s not retried (%v): %w", req.Method, req.URL.Redacted(), rerr, err)
		}
		req, fresh = retry, true
	}
}

// check validates req and returns the host:port to connect to.
func (t *Transport) check(req *http.Request) (string, error) {
	if req.URL == nil {
		return "", errors.New("uring: request has no URL")
	}
	switch req.URL.Scheme {
	case "http":
	case "https":
		return "", fmt.Errorf("uring: %s: https is not supported (use net/http for TLS)", req.URL.Redacted())
	default:
		return "", fmt.Errorf("uring: %s: unsupported scheme %q", req.URL.Redacted(), req.URL.Scheme)
	}
	host := req.URL.Host
	if host == "" {
		return "", fmt.Errorf("uring: %s: no host", req.URL.Redacted())
	}
	if req.URL.Port() == "" {
		host = net.JoinHostPort(strings.Trim(req.URL.Hostname(), "[]"), "80")
	}
	return host, nil
}

// exchange writes req on c and reads the response headers. On error c has
// been given back (closed) and the error wraps ErrServerClosed when c was a
// reused connection the server had closed before answering.
//
// A server may answer before it has read the whole request (a 413 for a
// body it will not take) and close the connection, so sending the rest
// fails with a reset or a broken pipe. As net/http does, that answer is
// returned instead of the send error, with the connection closed after it.
func (t *Transport) exchange(ctx context.Context, c *conn, req *http.Request) (*http.Response, error) {
	c.nread = 0
	c.watch(ctx)
	fail := func(what string, err error) (*http.Response, error) {
		reused := c.reused
		c.disarm()
		c.broken = true
		c.finish(false)
		if reused && c.nread == 0 && peerClosed(err) && ctx.Err() == nil {
			return nil, fmt.Errorf("uring: %s %s: %w: %v", req.Method, req.URL.Redacted(), ErrServerClosed, err)
		}
		return nil, fmt.Errorf("uring: %s %s: %s: %w", req.Method, req.URL.Redacted(), what, err)
	}
	if err := req.Write(c); err != nil {
		if c.err != nil {
			// net/http hides a writer's error behind its own unexported
			// type when the body is copied with WriterTo; ours says why.
			err = c.err
		}
		if !peerGone(err) || ctx.Err() != nil {
			return fail("write request", err)
		}
		// The peer is gone: the socket holds whatever it sent before, and
		// a recv cannot block. Read an early answer from it, if any.
		c.broken, c.err, c.wbuf = false, nil, c.wbuf[:0]
		resp, rerr := t.readHeader(c, req)
		if rerr != nil || c.broken {
			return fail("write request", err)
		}
		return t.respond(c, req, resp, false)
	}
	// Written, as far as a caller can tell: what is left in wbuf (under
	// 64 KiB) goes out with the first recv, which the timeout bounds too.
	resp, err := t.readHeader(c, req)
	if err != nil {
		return fail("read response", err)
	}
	if c.broken { // the timeout fired as the headers arrived
		return fail("read response", c.stopErr(stepRecv))
	}
	return t.respond(c, req, resp, true)
}

// readHeader reads the response headers on c, skipping 1xx informational
// responses, within ResponseHeaderTimeout and MaxResponseHeaderBytes. A
// read the context or the timeout stopped returns the step's error (which
// wraps the context's error or os.ErrDeadlineExceeded), not what the parser
// made of the bytes received before it.
func (t *Transport) readHeader(c *conn, req *http.Request) (*http.Response, error) {
	c.arm(t.opts.ResponseHeaderTimeout)
	c.hdrLimited, c.hdrLeft = true, t.opts.MaxResponseHeaderBytes
	defer func() { c.hdrLimited = false }()
	for {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			if c.hdrLeft <= 0 {
				return nil, fmt.Errorf("%w: more than %d bytes; aborted", ErrResponseHeaderTooLarge, t.opts.MaxResponseHeaderBytes)
			}
			if c.err != nil {
				return nil, c.err
			}
			return nil, err
		}
		// 1xx informational responses precede the real one (101 ends HTTP);
		// they count against the same header budget.
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		c.disarm()
		return resp, nil
	}
}

// respond sets up resp's body over c. keep is false when c must close after
// the response (the request was not fully sent).
func (t *Transport) respond(c *conn, req *http.Request, resp *http.Response, keep bool) (*http.Response, error) {
	c.disarm()
	reusable := keep && !resp.Close && !req.Close
	if resp.Body == http.NoBody || resp.Body == nil {
		resp.Body = http.NoBody
		c.finish(reusable)
		return resp, nil
	}
	if resp.ContentLength >= 0 && len(resp.TransferEncoding) == 0 {
		if resp.ContentLength == 0 {
			resp.Body = http.NoBody
			c.finish(reusable)
			return resp, nil
		}
		resp.Body = &body{c: c, reusable: reusable, remaining: resp.ContentLength}
		return resp, nil
	}
	resp.Body = &body{c: c, reusable: reusable, remaining: -1, src: resp.Body}
	return resp, nil
}

// finish ends c's current request: the context watcher is disarmed and c
// goes back to its pool, to the idle list only if reusable and sound.
func (c *conn) finish(reusable bool) {
	c.unwatch()
	if c.br.Buffered() > 0 { // bytes beyond the response: out of sync
		reusable = false
	}
	c.pool.put(c, reusable && !c.broken)
}

// peerClosed reports whether err means the peer closed or reset the
// connection.
func peerClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED)
}

// peerGone reports whether a send failed because the peer reset or closed
// the connection: after either, its socket holds only what was received,
// so a recv returns at once.
func peerGone(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// bodyMark remembers where a seekable request body started.
type bodyMark struct {
	seeker io.Seeker // nil: not seekable
	off    int64
}

// markBody records the position of req's body when it is an io.Seeker
// without GetBody, so a retry can send it again from there.
func markBody(req *http.Request) bodyMark {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return bodyMark{}
	}
	s := seekerOf(req.Body)
	if s == nil {
		return bodyMark{}
	}
	off, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return bodyMark{}
	}
	return bodyMark{seeker: s, off: off}
}

// seekerOf returns body as an io.Seeker, looking through io.NopCloser
// (whose Reader field is reachable only by reflection), or nil.
func seekerOf(body io.ReadCloser) io.Seeker {
	if s, ok := body.(io.Seeker); ok {
		return s
	}
	v := reflect.ValueOf(body)
	if v.Kind() != reflect.Struct || v.NumField() != 1 || v.Type().PkgPath() != "io" {
		return nil
	}
	f := v.Field(0)
	if !f.CanInterface() {
		return nil
	}
	s, _ := f.Interface().(io.Seeker)
	return s
}

// rewind returns req ready to be sent again, or why it can't be.
func rewind(req *http.Request, mark bodyMark) (*http.Request, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
	default:
		return nil, fmt.Errorf("%s is not idempotent", req.Method)
	}
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("GetBody: %w", err)
		}
		r2 := *req
		r2.Body = b
		return &r2, nil
	}
	if mark.seeker == nil {
		return nil, errors.New("its body cannot be re-read (no GetBody, not an io.Seeker)")
	}
	if _, err := mark.seeker.Seek(mark.off, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seek body back: %w", err)
	}
	return req, nil
}

// closeReqBody honours RoundTrip's contract to close the body on error.
func closeReqBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
