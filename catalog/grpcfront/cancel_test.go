package grpcfront_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// hangGuard bounds how long a test waits for something that must happen;
// reaching it means a hang (a failure), not a slow run.
const hangGuard = 20 * time.Second

// blockingCatalog is the real embedded catalog whose LoadTable blocks until
// its context ends: a stuck server is a fault no real catalog produces on
// demand. entered is signalled when a call is inside; left gets the context
// error the handler saw.
type blockingCatalog struct {
	icecatalog.Catalog
	entered chan struct{}
	left    chan error
}

func newBlocking(t *testing.T) *blockingCatalog {
	return &blockingCatalog{Catalog: openEmbedded(t), entered: make(chan struct{}, 8), left: make(chan error, 8)}
}

func (b *blockingCatalog) LoadTable(ctx context.Context, _ table.Identifier) (*table.Table, error) {
	b.entered <- struct{}{}
	<-ctx.Done()
	b.left <- ctx.Err()
	return nil, ctx.Err()
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("hang: no %s within %v", what, hangGuard)
		panic("unreachable")
	}
}

// TestCancelEndsCall: cancelling the caller's context ends a call the server
// is stuck in, with an error that is context.Canceled, and the server-side
// handler sees its context cancelled too.
func TestCancelEndsCall(t *testing.T) {
	b := newBlocking(t)
	s := serve(t, b, grpcfront.ServerOptions{})
	cl := dial(t, s.addr, grpcfront.ClientOptions{})

	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		_, err := cl.LoadTable(ctx, table.Identifier{"ns", "t"})
		res <- err
	}()
	waitFor(t, b.entered, "call reaching the server")
	cancel()
	err := waitFor(t, res, "return from the cancelled call")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if herr := waitFor(t, b.left, "server handler ending"); !errors.Is(herr, context.Canceled) {
		t.Fatalf("server handler saw %v, want context.Canceled", herr)
	}
}

// TestCallTimeout: with no deadline of its own, a call is bounded by the
// client's CallTimeout and fails with context.DeadlineExceeded.
func TestCallTimeout(t *testing.T) {
	b := newBlocking(t)
	s := serve(t, b, grpcfront.ServerOptions{})
	cl := dial(t, s.addr, grpcfront.ClientOptions{CallTimeout: 100 * time.Millisecond})

	res := make(chan error, 1)
	go func() {
		_, err := cl.LoadTable(context.Background(), table.Identifier{"ns", "t"})
		res <- err
	}()
	err := waitFor(t, res, "return from the timed-out call")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

// TestServerStoppedMidRun: a call in flight when the server stops, and calls
// after, fail with ErrUnavailable naming the address — no hang.
func TestServerStoppedMidRun(t *testing.T) {
	b := newBlocking(t)
	srv, err := grpcfront.NewServer(b, grpcfront.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	cl := dial(t, addr, grpcfront.ClientOptions{})

	res := make(chan error, 1)
	go func() {
		_, err := cl.LoadTable(context.Background(), table.Identifier{"ns", "t"})
		res <- err
	}()
	waitFor(t, b.entered, "call reaching the server")
	srv.Stop()
	if err := waitFor(t, done, "Serve returning"); err != nil {
		t.Fatalf("serve: %v", err)
	}

	inflight := waitFor(t, res, "return from the in-flight call")
	if !errors.Is(inflight, grpcfront.ErrUnavailable) || !strings.Contains(inflight.Error(), addr) {
		t.Fatalf("in-flight call: %v, want ErrUnavailable naming %s", inflight, addr)
	}
	for _, call := range []func() error{
		func() error { return cl.Control(context.Background()) },
		func() error {
			_, err := cl.CheckTableExists(context.Background(), table.Identifier{"ns", "t"})
			return err
		},
	} {
		after := make(chan error, 1)
		go func() { after <- call() }()
		if err := waitFor(t, after, "return from a call after stop"); !errors.Is(err, grpcfront.ErrUnavailable) {
			t.Fatalf("call after stop: %v, want ErrUnavailable", err)
		}
	}
}

// TestDialNothingListening: dialling a port nobody serves fails at Dial.
func TestDialNothingListening(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cl, err := grpcfront.Dial(context.Background(), addr, grpcfront.ClientOptions{})
	if err == nil {
		cl.Close()
		t.Fatal("dial succeeded with nothing listening")
	}
	if !errors.Is(err, grpcfront.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}

// TestDialBadAddress: malformed addresses are refused before any I/O.
func TestDialBadAddress(t *testing.T) {
	for _, addr := range []string{"", "localhost", "127.0.0.1:", ":::"} {
		if cl, err := grpcfront.Dial(context.Background(), addr, grpcfront.ClientOptions{}); !errors.Is(err, grpcfront.ErrBadAddress) {
			if cl != nil {
				cl.Close()
			}
			t.Errorf("Dial(%q) err = %v, want ErrBadAddress", addr, err)
		}
	}
}
