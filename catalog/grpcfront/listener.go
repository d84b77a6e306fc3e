package grpcfront

import (
	"errors"
	"net"
)

// noDelayListener sets TCP_NODELAY explicitly on every accepted TCP
// connection. Go enables it by default, but we do not rely on a default: a
// reply that spans several segments under Nagle's algorithm meets the peer's
// delayed ACK and stalls for tens of milliseconds (seen at ~41 ms per call on
// another catalog's gRPC front). Non-TCP connections pass through unchanged.
//
// Accept is called by one goroutine (grpc.Server.Serve); onAccept, when set by
// tests, runs on that goroutine after the option is set.
type noDelayListener struct {
	net.Listener
	onAccept func(*net.TCPConn)
}

// Accept returns the next connection with TCP_NODELAY set. A connection on
// which the option cannot be set is closed and skipped, never served with
// Nagle on.
func (l *noDelayListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc, ok := c.(*net.TCPConn)
		if !ok {
			return c, nil
		}
		if err := tc.SetNoDelay(true); err != nil {
			_ = tc.Close()
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			continue
		}
		if l.onAccept != nil {
			l.onAccept(tc)
		}
		return tc, nil
	}
}
