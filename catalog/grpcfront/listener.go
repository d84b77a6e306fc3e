package grpcfront

import (
	"errors"
	"net"
	"sync"
)

// noDelayListener sets TCP_NODELAY explicitly on every accepted TCP
// connection and bounds the open connections. Go enables TCP_NODELAY by
// default, but we do not rely on a default: a reply that spans several
// segments under Nagle's algorithm meets the peer's delayed ACK and stalls
// for tens of milliseconds (seen at ~41 ms per call on another catalog's
// gRPC front). Non-TCP connections pass through with the same bound.
//
// Accept is called by one goroutine (grpc.Server.Serve); onAccept, when set by
// tests, runs on that goroutine after the option is set. Connections are
// closed from any goroutine.
type noDelayListener struct {
	net.Listener
	onAccept func(*net.TCPConn)
	// slots holds one token per open connection; its capacity is the
	// connection limit. A connection accepted while it is full is closed at
	// once, so a flood of idle connections cannot grow the server without
	// bound (grpc keeps buffers and a reader goroutine per connection).
	slots chan struct{}
}

// Accept returns the next connection with TCP_NODELAY set. A connection on
// which the option cannot be set, or one past the limit, is closed and
// skipped, never served.
func (l *noDelayListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
		default:
			_ = c.Close()
			continue
		}
		tc, ok := c.(*net.TCPConn)
		if !ok {
			return &limitedConn{Conn: c, slots: l.slots}, nil
		}
		if err := tc.SetNoDelay(true); err != nil {
			_ = tc.Close()
			<-l.slots
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			continue
		}
		if l.onAccept != nil {
			l.onAccept(tc)
		}
		return &limitedConn{Conn: tc, slots: l.slots}, nil
	}
}

// limitedConn gives its slot back when first closed. Safe for concurrent use
// as its net.Conn is.
type limitedConn struct {
	net.Conn
	slots chan struct{}
	once  sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.slots })
	return err
}
