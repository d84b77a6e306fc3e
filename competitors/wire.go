package competitors

import (
	"context"
	"net"
	"sync/atomic"
)

// WireCounter is the capability to count the bytes the competitor's
// client moved over its connections: TCP payload written and read, every
// request and response (headers, bodies, HTTP/2 frames) included, TLS
// records as they are. The count only grows; a reader takes differences.
type WireCounter interface {
	WireBytes() int64
}

// wireCount counts the bytes of the connections its dialer made. Safe for
// concurrent use.
type wireCount struct{ n atomic.Int64 }

// WireBytes is the bytes read and written so far.
func (w *wireCount) WireBytes() int64 { return w.n.Load() }

// dialer wraps dial so that every connection it makes is counted.
func (w *wireCount) dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, n: &w.n}, nil
	}
}

// countingConn adds the bytes it reads and writes to n.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	c.n.Add(int64(k))
	return k, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	k, err := c.Conn.Write(p)
	c.n.Add(int64(k))
	return k, err
}
