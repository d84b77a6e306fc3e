package restserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
)

// TestShutdownBeforeServe: a Shutdown that comes before Serve (a signal
// right after the listener opened) makes Serve return nil at once with the
// listener closed, instead of serving forever.
func TestShutdownBeforeServe(t *testing.T) {
	srv, err := New(newEmbedded(t), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := srv.Serve(l); err != nil {
		t.Fatalf("serve after shutdown: %v, want nil", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("accept after serve: %v, want the listener closed", err)
	}
}
