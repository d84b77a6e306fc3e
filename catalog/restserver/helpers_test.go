package restserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"

	katcatalog "github.com/nordisk/katbench/catalog"
)

// plainCatalog hides the embedded catalog's LoadMetadataJSON fast path, so
// the server takes the generic LoadTable + encode path.
type plainCatalog struct{ icecatalog.Catalog }

// newEmbedded opens a fresh embedded catalog in a temp dir, closed at cleanup.
func newEmbedded(t testing.TB) *katcatalog.Catalog {
	t.Helper()
	return openEmbeddedAt(t, t.TempDir())
}

// openEmbeddedAt opens an embedded catalog in dir, closed at cleanup.
func openEmbeddedAt(t testing.TB, dir string) *katcatalog.Catalog {
	t.Helper()
	cat, err := katcatalog.Open(context.Background(), katcatalog.Options{Dir: dir, Durability: katcatalog.None})
	if err != nil {
		t.Fatalf("open embedded catalog: %v", err)
	}
	t.Cleanup(func() {
		if err := cat.Close(); err != nil {
			t.Errorf("close catalog: %v", err)
		}
	})
	return cat
}

// startServer serves cat on a loopback port and returns the server and its
// base URL; both are shut down at cleanup.
func startServer(t testing.TB, cat icecatalog.Catalog, opts Options) (*Server, string) {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := New(cat, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv, "http://" + l.Addr().String()
}

// newClient is iceberg-go's REST client against url.
func newClient(t testing.TB, url string, opts ...rest.Option) *rest.Catalog {
	t.Helper()
	cl, err := rest.NewCatalog(context.Background(), "katbench", url, opts...)
	if err != nil {
		t.Fatalf("rest.NewCatalog(%s): %v", url, err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// do sends one raw request and returns status and body.
func do(t testing.TB, method, url, token, body string) (int, string, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, string(b), resp.Header
}
