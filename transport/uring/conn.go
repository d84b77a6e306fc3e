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

	"github.com/nordisk/katbench/internal/phold"
	"github.com/nordisk/katbench/internal/ring"
)

// User data of a connection's ring operations. A connection runs one step at
// a time, so fixed values suffice.
const (
	udSend = 1 // queued request bytes, sent linked ahead of a recv
	udMain = 2 // the step's own operation (connect, send or recv)
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

// conn is one keep-alive HTTP/1.1 connection: a TCP socket and the ring
// that performs its I/O — a private ring, or in the shared wait a lane of
// a shared ring (onLane; see shared.go).
//
// Concurrency: a conn belongs to exactly one owner at a time — the pool while
// idle, then the goroutine running a request until the response body is
// closed. The one cross-goroutine entry is the context watcher, which only
// calls Interrupt on the ring and the lane (safe by their contracts).
type conn struct {
	pool   *hostPool
	wait   WaitMode // never WaitAuto: fixed for the connection's life
	fd     int
	ring   *ring.Ring // the private ring; nil on a lane
	lane   *ring.Lane // the lane of a shared ring; nil on a private ring
	onLane bool       // the conn's I/O runs on lane
	addr   netip.AddrPort
	sa     []byte        // the peer's raw sockaddr, referenced by the connect SQE
	wbuf   []byte        // queued request bytes, referenced by an in-flight send
	br     *bufio.Reader // response reader over c (Read = one recv step)

	idleSince time.Time // when it last went back to the pool; pool only

	// Per-request state, owner only.
	ctx   context.Context
	nread int64 // bytes received since the request began
	// hdrLimited is set while the response headers are read: each Read
	// may then receive at most hdrLeft more bytes, and fails with
	// errHeaderBudget when none are left.
	hdrLimited bool
	hdrLeft    int64
	reused     bool        // served a request before this one
	broken     bool        // must be closed, never pooled
	tainted    bool        // a watcher or timer fired: the ring may still be interrupted
	err        error       // the step error that broke it, if one did
	stopWake   func() bool // stops the context watcher; nil when none
	timer      *time.Timer // the armed phase timeout (dial, response header); nil when none
}

// errTimeout is the error of a step ended by a timeout that is not the
// context's own (ResponseHeaderTimeout, DialTimeout).
var errTimeout = fmt.Errorf("timeout: %w", os.ErrDeadlineExceeded)

// dial opens a TCP connection to addr through io_uring (IORING_OP_CONNECT on
// a blocking socket; the ring turns EINPROGRESS into a poll internally).
func dial(ctx context.Context, p *hostPool, addr netip.AddrPort) (*conn, error) {
	timeout, wait := p.dialTimeout, p.connWait(addr)
	onLane := p.laneWanted(wait)
	k, err := p.takeKit(onLane, addr)
	if err != nil {
		return nil, err
	}
	family := unix.AF_INET
	if addr.Addr().Is6() && !addr.Addr().Is4In6() {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		k.close()
		return nil, fmt.Errorf("uring: socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		k.close()
		unix.Close(fd)
		return nil, fmt.Errorf("uring: TCP_NODELAY: %w", err)
	}
	if onLane {
		// The lane's operations name the socket by its slot in the shared
		// ring's file table, when the ring has one; release empties the
		// slot before the socket closes.
		if err := k.lane.UseFile(fd); err != nil {
			k.close()
			unix.Close(fd)
			return nil, fmt.Errorf("uring: register socket: %w", err)
		}
	}
	c := &conn{pool: p, fd: fd, ring: k.ring, lane: k.lane, onLane: onLane, wait: wait, addr: addr, sa: rawSockaddr(addr, family), wbuf: k.wbuf, br: k.br, ctx: ctx}
	if c.br == nil {
		c.br = bufio.NewReaderSize(c, rbufSize)
	} else {
		c.br.Reset(c)
	}
	c.watch(ctx)
	c.arm(timeout)
	_, err = c.step(stepConnect, nil)
	c.disarm()
	c.unwatch()
	if err != nil {
		c.close()
		return nil, fmt.Errorf("uring: connect %s: %w", addr, err)
	}
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

// arm starts a phase timeout (DialTimeout, ResponseHeaderTimeout): when d
// passes first, the ring is interrupted exactly as when the context ends,
// so whatever the phase has in flight — a connect, a send to a peer that
// stopped reading, a recv — is cancelled, and the step fails with
// errTimeout. d <= 0 arms nothing. The timer costs no system call.
func (c *conn) arm(d time.Duration) {
	if d <= 0 {
		return
	}
	c.timer = time.AfterFunc(d, c.interrupter())
}

// disarm stops the phase timeout. If it already fired the conn is broken.
func (c *conn) disarm() {
	if c.timer != nil {
		if !c.timer.Stop() {
			c.broken, c.tainted = true, true
		}
		c.timer = nil
	}
}

// watch arms the context watcher for ctx: when ctx ends, the ring is
// interrupted, which cancels the step in flight with ASYNC_CANCEL SQEs.
// Contexts that can never end cost nothing.
func (c *conn) watch(ctx context.Context) {
	c.ctx = ctx
	if ctx.Done() == nil {
		return
	}
	c.stopWake = context.AfterFunc(ctx, c.interrupter())
}

// unwatch disarms the watcher. If it already fired the conn is broken: its
// ring is (or is about to be) interrupted.
func (c *conn) unwatch() {
	if c.stopWake != nil {
		if !c.stopWake() {
			c.broken, c.tainted = true, true
		}
		c.stopWake = nil
	}
	if c.interrupted() {
		c.broken = true
	}
}

// interrupter returns a function, for any goroutine, that interrupts the
// conn's ring and lane as they are now (Ring.Interrupt, Lane.Interrupt).
func (c *conn) interrupter() func() {
	rg, ln := c.ring, c.lane
	return func() {
		if rg != nil {
			rg.Interrupt()
		}
		if ln != nil {
			ln.Interrupt()
		}
	}
}

// interrupted reports whether the ring or the lane was interrupted.
func (c *conn) interrupted() bool {
	return (c.ring != nil && c.ring.Interrupted()) || (c.lane != nil && c.lane.Interrupted())
}

// stopErr is the error of a step the context watcher or a phase timeout
// interrupted: the context's error when it ended, errTimeout otherwise.
func (c *conn) stopErr(kind stepKind) error {
	if err := c.ctx.Err(); err != nil {
		return fmt.Errorf("uring: %s: %w", kind, err)
	}
	return fmt.Errorf("uring: %s: %w", kind, errTimeout)
}

// step runs one I/O operation and waits for it: connect, send p, or recv
// into p. A recv first sends the queued request bytes, linked ahead of it,
// so a whole small exchange is one io_uring_enter. The context watcher and
// the phase timeout bound the step by interrupting the ring. Any error
// breaks the conn; no error returns while an operation of the step is
// still in flight.
func (c *conn) step(kind stepKind, p []byte) (int, error) {
	if c.broken {
		return 0, fmt.Errorf("uring: %s on a broken connection", kind)
	}
	n, err := c.stepOnce(kind, p)
	if err != nil {
		c.broken = true
		c.err = err
	}
	return n, err
}

func (c *conn) stepOnce(kind stepKind, p []byte) (int, error) {
	if c.onLane {
		return c.stepLane(kind, p)
	}
	r := c.ring
	sendLen, err := c.prepStep(r, kind, p)
	if err != nil {
		return 0, c.abort(kind, err)
	}

	var sendRes, mainRes int32
	gotSend, gotMain := sendLen == 0, false
	for !gotSend || !gotMain {
		// Wait for the send and the main op together: one enter for the
		// common exchange.
		var want uint32
		if !gotSend {
			want++
		}
		if !gotMain {
			want++
		}
		if err := c.submitAndWait(want); err != nil {
			return 0, c.abort(kind, err)
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
			}
		}
		if (!gotSend || !gotMain) && r.Interrupted() {
			// The interrupt's cancels may have missed an operation that
			// had not started yet (a recv linked behind its send): Drain
			// cancels until everything is reaped.
			return 0, c.abort(kind, ring.ErrInterrupted)
		}
	}
	if r.Interrupted() {
		return 0, c.abort(kind, ring.ErrInterrupted)
	}
	return c.result(kind, p, sendLen, sendRes, mainRes)
}

// preparer stages operations: a private Ring or a shared ring's Lane.
type preparer interface {
	PrepConnect(userData uint64, fd int, sa []byte) (*ring.SQE, error)
	PrepSend(userData uint64, fd int, p []byte, waitAll bool) (*ring.SQE, error)
	PrepRecv(userData uint64, fd int, p []byte, waitAll bool) (*ring.SQE, error)
}

// prepStep stages a step's operations on pr: for a recv, the queued
// request bytes as a send linked ahead of it (sendLen is their length, 0
// when there are none), then the step's own operation (udMain). On an
// error the caller withdraws whatever was staged.
func (c *conn) prepStep(pr preparer, kind stepKind, p []byte) (sendLen int, err error) {
	if (kind == stepRecv || kind == stepRecvAll) && len(c.wbuf) > 0 {
		sqe, err := pr.PrepSend(udSend, c.fd, c.wbuf, true)
		if err != nil {
			return 0, err
		}
		sqe.Flags |= ring.FlagLink
		sendLen = len(c.wbuf)
	}
	switch kind {
	case stepConnect:
		_, err = pr.PrepConnect(udMain, c.fd, c.sa)
	case stepSend:
		_, err = pr.PrepSend(udMain, c.fd, p, true)
	case stepRecv, stepRecvAll:
		_, err = pr.PrepRecv(udMain, c.fd, p, kind == stepRecvAll)
	}
	return sendLen, err
}

// result turns a step's completions into its outcome: the bytes the main
// operation moved, or why it failed. sendLen is the length of the queued
// request bytes sent ahead of it (0: none).
func (c *conn) result(kind stepKind, p []byte, sendLen int, sendRes, mainRes int32) (int, error) {
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
		return 0, fmt.Errorf("uring: %s: %w", kind, unix.Errno(-mainRes))
	}
	if kind == stepSend && mainRes == 0 && len(p) > 0 {
		return 0, fmt.Errorf("uring: send: %w (0 of %d bytes)", io.ErrShortWrite, len(p))
	}
	// A send may be short when the peer resets the connection midway; the
	// caller (sendAll) sends the rest, which meets the reset's error.
	return int(mainRes), nil
}

// abort ends a failed or interrupted step: everything still in flight on
// the ring (the step's operations, an interrupt's cancels) is cancelled and
// reaped, so the kernel is done with the step's buffers before the error
// returns. An interrupted step reports why it was stopped (the context's
// error or errTimeout) rather than how the ring noticed.
func (c *conn) abort(kind stepKind, err error) error {
	if derr := c.ring.Drain(); derr != nil && !errors.Is(derr, ring.ErrClosed) {
		err = errors.Join(err, derr) // Close keeps the memory if the kernel is not done
	}
	if errors.Is(err, ring.ErrInterrupted) || c.ring.Interrupted() {
		return c.stopErr(kind)
	}
	return err
}

// submitAndWait waits for want completions in the connection's wait mode.
func (c *conn) submitAndWait(want uint32) error {
	switch c.wait {
	case WaitBlock:
		return c.ring.SubmitAndWait(want)
	case waitHold:
		if c.pool != nil {
			if phold.TryHold(c.pool.maxHolding) {
				defer phold.Release()
				return c.ring.SubmitAndWaitHolding(want)
			}
		}
	case waitAdaptive:
		if c.pool != nil {
			w := &c.pool.waiters
			n := w.Add(1)
			defer w.Add(-1)
			if n <= c.pool.maxBlocked {
				return c.ring.SubmitAndWait(want)
			}
		}
	}
	return c.ring.SubmitAndPoll(want)
}

// Read receives into p: one recv step (which first flushes queued request
// bytes). It returns io.EOF when the peer closed. bufio.Reader calls it
// with its own buffer, and response bodies of known length call it with the
// caller's slice, so GET bodies land in place.
func (c *conn) Read(p []byte) (int, error) {
	if !c.hdrLimited {
		return c.recv(stepRecv, p)
	}
	if c.hdrLeft <= 0 {
		return 0, ErrResponseHeaderTooLarge
	}
	if int64(len(p)) > c.hdrLeft {
		p = p[:c.hdrLeft]
	}
	n, err := c.recv(stepRecv, p)
	c.hdrLeft -= int64(n)
	return n, err
}

// readFull receives bytes the server owes us (the rest of a Content-Length
// body) straight into p. In WaitBlock mode it asks for all of p at once
// (MSG_WAITALL: one completion per body); in WaitPoll mode it takes what
// is there, because a MSG_WAITALL receive advances by task work on the
// submitting thread, which a parked goroutine has left — measured slower.
func (c *conn) readFull(p []byte) (int, error) {
	if c.wait != WaitBlock || c.onLane {
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
	if err := c.sendAll(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sendAll sends p in as many send steps as it takes.
func (c *conn) sendAll(p []byte) error {
	for len(p) > 0 {
		n, err := c.step(stepSend, p)
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
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
	if err := c.sendAll(c.wbuf); err != nil {
		return err
	}
	c.wbuf = c.wbuf[:0]
	return nil
}

// close closes the socket and gives a quiet ring, with the buffers, to the
// pool for the next dial; any other ring is closed (cancelling anything in
// flight).
func (c *conn) close() { c.release(true) }

// discard closes the socket and the ring, keeping nothing.
func (c *conn) discard() { c.release(false) }

func (c *conn) release(keep bool) {
	c.disarm()
	c.unwatch()
	if c.onLane && c.lane.ReleaseFile() != nil {
		keep = false // the slot may still hold the socket: never reuse the lane
	}
	if c.lane != nil && c.lane.Err() != nil {
		closeLane(c.lane) // its ring died: never reused
		c.lane = nil
	}
	k := kit{c.ring, c.lane, c.wbuf, c.br}
	if !keep || c.tainted || c.interrupted() || (c.ring != nil && c.ring.InFlight() > 0) || c.pool == nil || !c.pool.keepKit(k) {
		k.close()
	}
	unix.Close(c.fd)
	c.fd = -1
}
