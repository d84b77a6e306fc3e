package serve_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/serve"
)

func TestWarnIfExposed(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		auth bool
		warn bool
	}{
		{"0.0.0.0", false, true},
		{"::", false, true},
		{"192.0.2.7", false, true},
		{"0.0.0.0", true, false},
		{"127.0.0.1", false, false},
		{"127.0.0.2", false, false},
		{"::1", false, false},
	} {
		var buf bytes.Buffer
		serve.WarnIfExposed(&buf, &net.TCPAddr{IP: net.ParseIP(tc.ip), Port: 8181}, tc.auth)
		if got := strings.Contains(buf.String(), "WARNING"); got != tc.warn {
			t.Errorf("%s auth=%v: warned=%v (%q), want %v", tc.ip, tc.auth, got, buf.String(), tc.warn)
		}
	}
}

// openTemp opens a catalog in a temp dir of OpenCatalog's own and checks
// that closing removes it.
func openTemp(t *testing.T, front string) *catalog.Catalog {
	t.Helper()
	cat, dir, closeCat, err := serve.OpenCatalog(context.Background(), front, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "katbench-"+front+"-") {
		t.Errorf("temp dir %s not named after the front", dir)
	}
	t.Cleanup(func() {
		if err := closeCat(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("temp dir %s left behind: %v", dir, err)
		}
	})
	return cat
}

func TestOpenCatalogKeepsGivenDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cat")
	_, got, closeCat, err := serve.OpenCatalog(context.Background(), "rest", catalog.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got != dir {
		t.Errorf("dir = %s, want %s", got, dir)
	}
	if err := closeCat(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a given dir must outlive the close: %v", err)
	}
}

// TestRESTLifecycle: a front listened on answers, stops on Until's context,
// calls stopping once, and the port is closed after.
func TestRESTLifecycle(t *testing.T) {
	srv, err := restserver.New(openTemp(t, "rest"), restserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := serve.Listen("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + run.Addr().String() + "/v1/config")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/config: %s", resp.Status)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stops := 0
	if err := run.Until(ctx, func() { stops++ }); err != nil {
		t.Fatalf("Until: %v", err)
	}
	if stops != 1 {
		t.Errorf("stopping called %d times, want 1", stops)
	}
	if err := run.Stop(serve.Grace); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if c, err := net.Dial("tcp", run.Addr().String()); err == nil {
		c.Close()
		t.Errorf("%s still accepts after Stop", run.Addr())
	}
}

// TestGRPCLifecycle: the gRPC front runs under the same lifecycle.
func TestGRPCLifecycle(t *testing.T) {
	srv, err := grpcfront.NewServer(openTemp(t, "grpc"), grpcfront.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := serve.Listen("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := grpcfront.Dial(context.Background(), run.Addr().String(), grpcfront.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Control(context.Background()); err != nil {
		t.Fatalf("Control: %v", err)
	}
	if err := run.Stop(serve.Grace); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cl.Control(ctx); err == nil {
		t.Error("Control succeeded after Stop")
	}
}

func TestListenBadAddr(t *testing.T) {
	srv, err := restserver.New(openTemp(t, "rest"), restserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := serve.Listen("127.0.0.1:notaport", srv); err == nil {
		t.Fatal("Listen on a bad address succeeded")
	}
}

// TestRun: Run serves until its context ends, says so on Log, and removes
// the temp dir of its catalog.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type up struct {
		addr net.Addr
		dir  string
	}
	ups := make(chan up, 1)
	var log bytes.Buffer // written by Run only until it returns
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, serve.Front{Name: "rest", Addr: "127.0.0.1:0", Log: &log,
			New: func(cat *catalog.Catalog) (serve.Server, error) { return restserver.New(cat, restserver.Options{}) },
			Banner: func(addr net.Addr, dir string) string {
				ups <- up{addr, dir}
				return "serving at " + addr.String()
			}})
	}()
	var u up
	select {
	case u = <-ups:
	case err := <-done:
		t.Fatalf("Run returned before listening: %v", err)
	}
	resp, err := http.Get("http://" + u.addr.String() + "/v1/config")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if out := log.String(); !strings.Contains(out, "serving at "+u.addr.String()) || !strings.Contains(out, "shutting down") {
		t.Errorf("log %q", out)
	}
	if _, err := os.Stat(u.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp catalog dir %s left behind: %v", u.dir, err)
	}
}
