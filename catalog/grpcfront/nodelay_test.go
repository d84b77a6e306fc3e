package grpcfront_test

import (
	"context"
	"net"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// nagleListener turns TCP_NODELAY off on every accepted connection, as a
// platform without Go's default would hand them over, so the test proves the
// server sets the option itself rather than inheriting it.
type nagleListener struct {
	net.Listener
	t       *testing.T
	offSeen chan int // getsockopt right after switching it off
}

func (l *nagleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := c.(*net.TCPConn)
	if err := tc.SetNoDelay(false); err != nil {
		l.t.Errorf("switch nodelay off: %v", err)
	}
	v, err := noDelay(tc)
	if err != nil {
		l.t.Errorf("getsockopt: %v", err)
	}
	l.offSeen <- v
	return tc, nil
}

// noDelay reads TCP_NODELAY from the kernel for the connection's socket.
func noDelay(c *net.TCPConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	v := -1
	var serr error
	if err := raw.Control(func(fd uintptr) {
		v, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NODELAY)
	}); err != nil {
		return -1, err
	}
	return v, serr
}

// TestAcceptedConnectionHasNoDelay checks with getsockopt on the server-side
// accepted socket that the server set TCP_NODELAY.
func TestAcceptedConnectionHasNoDelay(t *testing.T) {
	cat := openEmbedded(t)
	srv, err := grpcfront.NewServer(cat, grpcfront.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	onSeen := make(chan int, 4)
	srv.SetOnAccept(func(c *net.TCPConn) {
		v, err := noDelay(c)
		if err != nil {
			t.Errorf("getsockopt on accepted socket: %v", err)
		}
		onSeen <- v
	})
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &nagleListener{Listener: inner, t: t, offSeen: make(chan int, 4)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	cl := dial(t, inner.Addr().String(), grpcfront.ClientOptions{})
	if err := cl.Control(context.Background()); err != nil {
		t.Fatalf("control: %v", err)
	}
	if off := <-l.offSeen; off != 0 {
		t.Fatalf("precondition: TCP_NODELAY after switching it off = %d, want 0", off)
	}
	if on := <-onSeen; on != 1 {
		t.Fatalf("TCP_NODELAY on the accepted socket = %d, want 1", on)
	}
}
