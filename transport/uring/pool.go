package uring

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/phold"
	"github.com/nordisk/katbench/internal/ring"
)

// hostPool is the keep-alive pool of one host:port: at most size open
// connections, idle ones reused most-recently-used first.
//
// Concurrency: safe for concurrent use. sem holds one token per connection
// in use (or being dialed), so a request waits when size are busy; a new
// connection is dialed only when none is idle, which keeps open connections
// (idle + in use) within size too.
type hostPool struct {
	hostport    string
	dialTimeout time.Duration
	idleTimeout time.Duration // < 0: never
	wait        WaitMode
	skipPeek    bool
	waiters     atomic.Int32 // requests of this host waiting for completions (waitAdaptive)
	maxBlocked  int32        // waitAdaptive blocks only while waiters ≤ this
	maxHolding  int32        // waitHold holds a P only while the process's holders ≤ this
	sem         chan struct{}

	autoMu  sync.Mutex   // guards autoW and autoWhy
	autoW   WaitMode     // WaitAuto's pick, made by autoWait at the first dial
	autoWhy string       // autoWait's reason; "" until then
	lanes   *sharedGroup // the shared rings of this host's lanes; nil until the first lane

	mu     sync.Mutex
	idle   []*conn
	kits   []kit // quiet rings and buffers of closed conns, reused by the next dial
	closed bool
}

func newHostPool(hostport string, opts Options, skipPeek bool) *hostPool {
	return &hostPool{hostport: hostport, dialTimeout: opts.DialTimeout, idleTimeout: opts.IdleTimeout,
		wait: opts.Wait, skipPeek: skipPeek, sem: make(chan struct{}, opts.PoolSize),
		maxBlocked: int32(max(runtime.GOMAXPROCS(0)-1, 1)), maxHolding: phold.Limit()}
}

// connWait is the wait mode of a connection to addr: the pool's, or for
// WaitAuto the one autoWait picked at the pool's first dial.
func (p *hostPool) connWait(addr netip.AddrPort) WaitMode {
	if p.wait != WaitAuto {
		return p.wait
	}
	p.autoMu.Lock()
	defer p.autoMu.Unlock()
	if p.autoWhy == "" {
		p.autoW, p.autoWhy = autoWait(addr)
	}
	return p.autoW
}

// peekAfter is how long a connection must have idled before its reuse
// costs a liveness peek (one recv system call). Back-to-back requests skip
// it: a server closes idle connections after seconds, not microseconds, and
// the rare race left is covered by the retry of rewindable requests.
const peekAfter = time.Millisecond

// alive reports whether an idle connection is still usable: a non-blocking
// MSG_PEEK finds nothing to read. EOF (the server closed), unexpected bytes
// (say, a 408 the server sent before closing) or an error mean it is not.
func (c *conn) alive() bool {
	var b [1]byte
	n, _, err := unix.Recvfrom(c.fd, b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return n < 0 && (err == unix.EAGAIN || err == unix.EWOULDBLOCK)
}

// get returns an idle connection or dials a new one, waiting for a free slot
// while size connections are in use. fresh forces a new connection.
func (p *hostPool) get(ctx context.Context, fresh bool) (*conn, error) {
	select {
	case p.sem <- struct{}{}:
	default:
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("uring: waiting for a connection to %s: %w", p.hostport, ctx.Err())
		}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.sem
		return nil, ErrPoolClosed
	}
	for n := len(p.idle); n > 0 && !fresh; n = len(p.idle) {
		c := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		idle := time.Since(c.idleSince)
		if (p.idleTimeout > 0 && idle > p.idleTimeout) || (idle >= peekAfter && !p.skipPeek && !c.alive()) {
			// Expired or closed by the server: drop it (its slot is ours).
			p.mu.Unlock()
			c.close()
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				<-p.sem
				return nil, ErrPoolClosed
			}
			continue
		}
		p.mu.Unlock()
		c.reused = true
		return c, nil
	}
	var stale *conn
	if n := len(p.idle); n > 0 && fresh {
		// Idle conns hold no slot, but open ones must stay within size:
		// the oldest idle one (likely as stale as the one that failed) goes.
		stale = p.idle[0]
		p.idle = p.idle[1:]
	}
	p.mu.Unlock()
	if stale != nil {
		stale.close()
	}
	addr, err := p.resolve(ctx)
	if err != nil {
		<-p.sem
		return nil, err
	}
	c, err := dial(ctx, p, addr)
	if err != nil {
		<-p.sem
		return nil, err
	}
	return c, nil
}

// resolve turns host:port into one address (IP literals need no lookup).
func (p *hostPool) resolve(ctx context.Context) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(p.hostport); err == nil {
		return ap, nil
	}
	host, port, err := net.SplitHostPort(p.hostport)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("uring: address %q: %w", p.hostport, err)
	}
	pn, err := net.LookupPort("tcp", port)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("uring: port of %q: %w", p.hostport, err)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return netip.AddrPort{}, fmt.Errorf("uring: resolve %q: %w", host, err)
	}
	for _, ip := range ips { // prefer IPv4, like most local test servers
		if ip.Is4() || ip.Is4In6() {
			return netip.AddrPortFrom(ip.Unmap(), uint16(pn)), nil
		}
	}
	return netip.AddrPortFrom(ips[0], uint16(pn)), nil
}

// put gives c back: to the idle list when reusable, closed otherwise.
func (p *hostPool) put(c *conn, reusable bool) {
	if reusable && !c.broken {
		c.ctx = nil
		c.idleSince = time.Now()
		p.mu.Lock()
		if !p.closed {
			p.idle = append(p.idle, c)
			p.mu.Unlock()
			<-p.sem
			return
		}
		p.mu.Unlock()
	}
	c.close()
	<-p.sem
}

// kit is what a connection needs besides its socket: a private ring or a
// lane of a shared ring (or both), the request buffer and the response
// reader.
type kit struct {
	ring *ring.Ring
	lane *ring.Lane
	wbuf []byte
	br   *bufio.Reader
}

// close closes the kit's ring and lane.
func (k kit) close() {
	if k.ring != nil {
		closeRing(k.ring)
	}
	if k.lane != nil {
		closeLane(k.lane)
	}
}

// takeKit returns a kit kept from a closed connection, or a new one, with
// a lane of a shared ring for a server at addr if onLane, a private ring
// otherwise.
// Setting a ring up and tearing it down costs more than a TCP connection
// (io_uring_setup, three mmaps, and the kernel's asynchronous teardown), and
// the buffers are 80 KiB, so against servers that close connections after
// each response, kits are reused.
func (p *hostPool) takeKit(onLane bool, addr netip.AddrPort) (kit, error) {
	k := kit{}
	p.mu.Lock()
	if n := len(p.kits); n > 0 {
		k = p.kits[n-1]
		p.kits[n-1] = kit{}
		p.kits = p.kits[:n-1]
	}
	p.mu.Unlock()
	if k.wbuf == nil {
		k.wbuf = make([]byte, 0, wbufSize)
	}
	var err error
	switch {
	case onLane && k.lane == nil:
		k.lane, err = p.newLane(addr)
	case !onLane && k.ring == nil:
		k.ring, err = p.newRing()
	}
	if err != nil {
		k.close()
		return kit{}, err
	}
	return k, nil
}

// newRing sets up a connection's private ring.
func (p *hostPool) newRing() (*ring.Ring, error) {
	newRing := ring.New
	if p.wait == waitSQPoll {
		newRing = sqpollRing
	}
	return newRing(8) // send + op + cancels fit with room
}

// keepKit takes the kit of a closing connection whose ring is quiet
// (nothing in flight, not interrupted) for the next dial; false means the
// caller closes the ring.
func (p *hostPool) keepKit(k kit) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.kits) >= cap(p.sem) {
		return false
	}
	k.wbuf = k.wbuf[:0]
	p.kits = append(p.kits, k)
	return true
}

// closeIdle closes every idle connection; with shut, the pool also refuses
// new requests.
func (p *hostPool) closeIdle(shut bool) {
	p.mu.Lock()
	idle, kits := p.idle, p.kits
	p.idle, p.kits = nil, nil
	if shut {
		p.closed = true
	}
	p.mu.Unlock()
	for _, c := range idle {
		c.discard()
	}
	for _, k := range kits {
		k.close()
	}
}
