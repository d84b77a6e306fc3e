package grpcfront_test

import (
	"context"
	"errors"
	"net"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
)

// openEmbedded opens a fresh embedded catalog in a temp dir, closed at cleanup.
func openEmbedded(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("open embedded catalog: %v", err)
	}
	t.Cleanup(func() {
		if err := cat.Close(); err != nil {
			t.Errorf("close embedded catalog: %v", err)
		}
	})
	return cat
}

// plainCatalog hides the embedded catalog's LoadMetadataJSON fast path, so
// the server takes its generic path (LoadTable + encode) over the same real
// catalog.
type plainCatalog struct{ icecatalog.Catalog }

// served is a server on loopback over some catalog.
type served struct {
	srv  *grpcfront.Server
	addr string
	done chan error // Serve's result
}

// serve starts a server for cat on 127.0.0.1:0; stopped at cleanup.
func serve(t testing.TB, cat icecatalog.Catalog, opts grpcfront.ServerOptions, setup ...func(*grpcfront.Server)) *served {
	t.Helper()
	srv, err := grpcfront.NewServer(cat, opts)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	for _, f := range setup {
		f(srv)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &served{srv: srv, addr: l.Addr().String(), done: make(chan error, 1)}
	go func() { s.done <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Stop()
		if err := <-s.done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s
}

// dial connects a client to addr; closed at cleanup.
func dial(t testing.TB, addr string, opts grpcfront.ClientOptions) *grpcfront.Client {
	t.Helper()
	cl, err := grpcfront.Dial(context.Background(), addr, opts)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() {
		if err := cl.Close(); err != nil && !errors.Is(err, grpcfront.ErrClientClosed) {
			t.Errorf("close client: %v", err)
		}
	})
	return cl
}

// embeddedClient is a client over a server over a fresh embedded catalog.
func embeddedClient(t testing.TB) (*grpcfront.Client, *catalog.Catalog) {
	t.Helper()
	cat := openEmbedded(t)
	s := serve(t, cat, grpcfront.ServerOptions{})
	return dial(t, s.addr, grpcfront.ClientOptions{}), cat
}
