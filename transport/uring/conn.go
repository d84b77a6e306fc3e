package uring

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/transport/uring/internal/ring"
)

// User data of a connection's ring operations. A connection runs one step at
// a time, so fixed values suffice.
const (
	udSend    = 1 // queued request bytes, sent linked ahead of a recv
	udMain    = 2 // the step's own operation (connect, send or recv)
	udTimeout = 3 // the link timeout guarding udMain
)

const (
	// wbufSize is the request buffer: writes smaller than half of it are
	// copied in and go out with the response's first recv in one
	// io_uring_enter; larger ones are sent straight from the caller's slice.
	wbufSize = 64 << 10
	// rbufSize is the response header buffer (bufio.Reader); body reads of
	// a known length bypass it once it is empty.
	rbufSize = 16 << 10
)

type stepKind int

const (
	stepConnect stepKind = iota
	stepSend
	stepRecv
	stepRecvAll // recv until p is full (MSG_WAITALL)
)

func (k stepKind) String() string {
	return [...]string{"connect", "send", "recv", "recv"}[k]
}

// conn is one keep-alive HTTP/1.1 connection: a TCP socket and the private
// ring that performs all of its I/O.
//
// Concurrency: a conn belongs to exactly one owner at a time — the pool while
// idle, then the goroutine running a request until the response body is
// closed. The one cross-goroutine entry is the context watcher, which only
// calls ring.Interrupt (safe by Ring's contract).
type conn struct {
	pool *hostPool
	wait WaitMode // WaitBlock or WaitPoll, for the connection's life
	fd   int
	ring *ring.Ring
	sa   []byte        // the peer's raw sockaddr, referenced by the connect SQE
	wbuf []byte        // queued request bytes, referenced by an in-flight send
	br   *bufio.Reader // response reader over c (Read = one recv step)
	to   ring.Timeout  // link timeout of the current step; heap field, stable address

	// Per-request state, owner only.
	ctx      context.Context
	deadline time.Time   // zero: no deadline for the current step
	nread    int64       // bytes received since the request began
	reused   bool        // served a request before this one
	broken   bool        // must be closed, never pooled
	stopWake func() bool // stops the context watcher; nil when none
}

// errTimeout is the error of a step ended by a deadline that is not the
// context's own (ResponseHeaderTimeout, DialTimeout).
var errTimeout = fmt.Errorf("uring: %w", os.ErrDeadlineExceeded)

// dial opens a TCP connection to addr through io_uring (IORING_OP_CONNECT on
// a blocking socket; the ring turns EINPROGRESS into a poll internally).
func dial(ctx context.Context, addr netip.AddrPort, timeout time.Duration, wait WaitMode) (*conn, error) {
	rg, err := ring.New(8) // send + op + timeout + cancels fit with room
	if err != nil {
		return nil, err
	}
	family := unix.AF_INET
	if addr.Addr().Is6() && !addr.Addr().Is4In6() {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		rg.Close()
		return nil, fmt.Errorf("uring: socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		rg.Close()
		unix.Close(fd)
		return nil, fmt.Errorf("uring: TCP_NODELAY: %w", err)
	}
	c := &conn{fd: fd, ring: rg, wait: wait, sa: rawSockaddr(addr, family), wbuf: make([]byte, 0, wbufSize), ctx: ctx}
	c.br = bufio.NewReaderSize(c, rbufSize)
	c.deadline = earliest(ctx, timeout)
	c.watch(ctx)
	_, err = c.step(stepConnect, nil)
	c.unwatch()
	if err != nil {
		c.close()
		return nil, fmt.Errorf("uring: connect %s: %w", addr, err)
	}
	c.deadline = time.Time{}
	return c, nil
}

// rawSockaddr renders addr as struct sockaddr_in / sockaddr_in6 bytes.
func rawSockaddr(addr netip.AddrPort, family int) []byte {
	if family == unix.AF_INET {
		sa := make([]byte, unix.SizeofSockaddrInet4)
		binary.NativeEndian.PutUint16(sa[0:], unix.AF_INET)
		binary.BigEndian.PutUint16(sa[2:], addr.Port())
		ip := addr.Addr().Unmap().As4()
		copy(sa[4:8], ip[:])
		return sa
	}
	sa := make([]byte, unix.SizeofSockaddrInet6)
	binary.NativeEndian.PutUint16(sa[0:], unix.AF_INET6)
	binary.BigEndian.PutUint16(sa[2:], addr.Port())
	ip := addr.Addr().As16()
	copy(sa[8:24], ip[:])
	return sa
}

// earliest returns the earlier of ctx's deadline and now+d (d <= 0: none).
func earliest(ctx context.Context, d time.Duration) time.Time {
	dl, ok := ctx.Deadline()
	if d > 0 {
		if t := time.Now().Add(d); !ok || t.Before(dl) {
			return t
		}
	}
	if ok {
		return dl
	}
	return time.Time{}
}

// watch arms the context watcher for ctx: when ctx ends, the ring is
// interrupted, which cancels the step in flight with ASYNC_CANCEL SQEs.
// Contexts that can never end cost nothing.
func (c *conn) watch(ctx context.Context) {
	c.ctx = ctx
	if ctx.Done() == nil {
		return
	}
	rg := c.ring
	c.stopWake = context.AfterFunc(ctx, func() { rg.Interrupt() })
}

// unwatch disarms the watcher. If it already fired the conn is broken: its
// ring is (or is about to be) interrupted.
func (c *conn) unwatch() {
	if c.stopWake != nil {
		if !c.stopWake() {
			c.broken = true
		}
		c.stopWake = nil
	}
	if c.ring.Interrupted() {
		c.broken = true
	}
}

// ctxErr is the error of a step the context watcher interrupted.
func (c *conn) ctxErr() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return errTimeout
}

// step runs one I/O operation and waits for it: connect, send p, or recv
// into p. A recv first sends the queued request bytes, linked ahead of it,
// so a whole small exchange is one io_uring_enter. A deadline becomes a
// linked timeout on the operation. Any error breaks the conn.
func (c *conn) step(kind stepKind, p []byte) (int, error) {
	if c.broken {
		return 0, fmt.Errorf("uring: %s on a broken connection", kind)
	}
	n, err := c.stepOnce(kind, p)
	if err != nil {
		c.broken = true
	}
	return n, err
}

func (c *conn) stepOnce(kind stepKind, p []byte) (int, error) {
	var timeout time.Duration
	if !c.deadline.IsZero() {
		if timeout = time.Until(c.deadline); timeout <= 0 {
			return 0, c.deadlineErr(kind)
		}
	}
	r := c.ring
	sendLen := 0
	if (kind == stepRecv || kind == stepRecvAll) && len(c.wbuf) > 0 {
		sqe, err := r.PrepSend(udSend, c.fd, c.wbuf, true)
		if err != nil {
			return 0, err
		}
		sqe.Flags |= ring.FlagLink
		sendLen = len(c.wbuf)
	}
	var sqe *ring.SQE
	var err error
	switch kind {
	case stepConnect:
		sqe, err = r.PrepConnect(udMain, c.fd, c.sa)
	case stepSend:
		sqe, err = r.PrepSend(udMain, c.fd, p, true)
	case stepRecv, stepRecvAll:
		sqe, err = r.PrepRecv(udMain, c.fd, p, kind == stepRecvAll)
	}
	if err != nil {
		return 0, err
	}
	if timeout > 0 {
		sqe.Flags |= ring.FlagLink
		c.to.Set(int64(timeout))
		if _, err := r.PrepLinkTimeout(udTimeout, &c.to); err != nil {
			return 0, err
		}
	}

	var sendRes, mainRes, toRes int32
	gotSend, gotMain, gotTimeout := sendLen == 0, false, timeout == 0
	for !gotSend || !gotMain || !gotTimeout {
		// Wait for the send and the main op together (one enter for the
		// common exchange); the timeout's CQE follows its target at once.
		var want uint32
		if !gotSend {
			want++
		}
		if !gotMain {
			want++
		}
		if want == 0 {
			want = 1
		}
		if err := c.submitAndWait(want); err != nil {
			if errors.Is(err, ring.ErrInterrupted) {
				return 0, c.ctxErr()
			}
			return 0, err
		}
		for {
			cqe, ok := r.PeekCQE()
			if !ok {
				break
			}
			switch cqe.UserData {
			case udSend:
				sendRes, gotSend = cqe.Res, true
			case udMain:
				mainRes, gotMain = cqe.Res, true
			case udTimeout:
				toRes, gotTimeout = cqe.Res, true
			}
		}
	}
	if r.Interrupted() {
		// Reap the interrupt's own cancel completions before returning.
		for r.InFlight() > 0 {
			if err := r.SubmitAndWait(1); err != nil {
				break
			}
			for _, ok := r.PeekCQE(); ok; _, ok = r.PeekCQE() {
			}
		}
		return 0, c.ctxErr()
	}
	if sendLen > 0 {
		if sendRes < 0 {
			return 0, fmt.Errorf("uring: send: %w", unix.Errno(-sendRes))
		}
		if int(sendRes) != sendLen {
			return 0, fmt.Errorf("uring: send: %w (%d of %d bytes)", io.ErrShortWrite, sendRes, sendLen)
		}
		c.wbuf = c.wbuf[:0]
	}
	if mainRes < 0 {
		errno := unix.Errno(-mainRes)
		if errno == unix.ECANCELED && toRes == -int32(unix.ETIME) {
			return 0, c.deadlineErr(kind)
		}
		return 0, fmt.Errorf("uring: %s: %w", kind, errno)
	}
	if kind == stepSend && int(mainRes) != len(p) {
		return 0, fmt.Errorf("uring: send: %w (%d of %d bytes)", io.ErrShortWrite, mainRes, len(p))
	}
	return int(mainRes), nil
}

// submitAndWait waits for want completions in the connection's wait mode.
func (c *conn) submitAndWait(want uint32) error {
	if c.wait == WaitBlock {
		return c.ring.SubmitAndWait(want)
	}
	return c.ring.SubmitAndPoll(want)
}

// deadlineErr is the error of a step whose deadline passed.
func (c *conn) deadlineErr(kind stepKind) error {
	if err := c.ctx.Err(); err != nil {
		return fmt.Errorf("uring: %s: %w", kind, err)
	}
	if dl, ok := c.ctx.Deadline(); ok && !time.Now().Before(dl) {
		return fmt.Errorf("uring: %s: %w", kind, context.DeadlineExceeded)
	}
	return fmt.Errorf("uring: %s: %w", kind, errTimeout)
}

// Read receives into p: one recv step (which first flushes queued request
// bytes). It returns io.EOF when the peer closed. bufio.Reader calls it
// with its own buffer, and response bodies of known length call it with the
// caller's slice, so GET bodies land in place.
func (c *conn) Read(p []byte) (int, error) {
	return c.recv(stepRecv, p)
}

// readFull receives bytes the server owes us (the rest of a Content-Length
// body) straight into p. In WaitBlock mode it asks for all of p at once
// (MSG_WAITALL: one completion per body); in WaitPoll mode it takes what
// is there, because a MSG_WAITALL receive advances by task work on the
// submitting thread, which a parked goroutine has left — measured slower.
func (c *conn) readFull(p []byte) (int, error) {
	if c.wait != WaitBlock {
		return c.recv(stepRecv, p)
	}
	return c.recv(stepRecvAll, p)
}

func (c *conn) recv(kind stepKind, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.step(kind, p)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		c.broken = true
		return 0, io.EOF
	}
	c.nread += int64(n)
	return n, nil
}

// Write queues small writes (sent with the next recv, or when the queue
// fills) and sends large ones straight from p.
func (c *conn) Write(p []byte) (int, error) {
	if len(p) < wbufSize/2 {
		if len(c.wbuf)+len(p) > cap(c.wbuf) {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
		c.wbuf = append(c.wbuf, p...)
		return len(p), nil
	}
	if err := c.flush(); err != nil {
		return 0, err
	}
	if _, err := c.step(stepSend, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write for strings, without a conversion copy for small
// ones.
func (c *conn) WriteString(s string) (int, error) {
	if len(s) < wbufSize/2 {
		if len(c.wbuf)+len(s) > cap(c.wbuf) {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
		c.wbuf = append(c.wbuf, s...)
		return len(s), nil
	}
	return c.Write([]byte(s))
}

// WriteByte makes conn an io.ByteWriter, so (*http.Request).Write uses it
// directly instead of wrapping it in another bufio.Writer.
func (c *conn) WriteByte(b byte) error {
	if len(c.wbuf) == cap(c.wbuf) {
		if err := c.flush(); err != nil {
			return err
		}
	}
	c.wbuf = append(c.wbuf, b)
	return nil
}

// flush sends the queued request bytes now.
func (c *conn) flush() error {
	if len(c.wbuf) == 0 {
		return nil
	}
	if _, err := c.step(stepSend, c.wbuf); err != nil {
		return err
	}
	c.wbuf = c.wbuf[:0]
	return nil
}

// close releases the ring (cancelling anything in flight) and the socket.
func (c *conn) close() {
	c.unwatch()
	c.ring.Close()
	unix.Close(c.fd)
	c.fd = -1
}
