package competitors

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
)

var restSchema = iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})

func newCompetitor(t *testing.T, name string, cfg Config) (Competitor, error) {
	t.Helper()
	f, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg.Env = ReadEnv(name, os.Getenv) // as cmd hands it down
	c, err := f.New(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// exercise creates a namespace and a table through c and checks both exist.
func exercise(t *testing.T, c Competitor) {
	t.Helper()
	ctx := context.Background()
	cat := c.Catalog()
	ns := table.Identifier{"kb"}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	ident := table.Identifier{"kb", "t"}
	if _, err := cat.CreateTable(ctx, ident, restSchema); err != nil {
		t.Fatalf("create table: %v", err)
	}
	ok, err := cat.CheckTableExists(ctx, ident)
	if err != nil || !ok {
		t.Fatalf("table exists: %v %v", ok, err)
	}
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil || tbl.Metadata().TableUUID().String() == "" {
		t.Fatalf("load table: %v", err)
	}
}

func TestRESTInProcess(t *testing.T) {
	f, err := Lookup("rest")
	if err != nil || !f.Durability {
		t.Fatalf("rest factory: %+v %v", f, err)
	}
	c, err := newCompetitor(t, "rest", Config{Dir: t.TempDir(), Durability: "none"})
	if err != nil {
		t.Fatal(err)
	}
	ctl, ok := As[Controller](c)
	if !ok {
		t.Fatal("rest is not a Controller")
	}
	if err := ctl.Control(context.Background()); err != nil {
		t.Fatalf("control: %v", err)
	}
	if e, ok := As[Ephemeral](c); !ok || !e.Ephemeral() {
		t.Fatal("in-process rest should be ephemeral")
	}
	if u, _ := c.Params()["url"].(string); !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("params url %q", u)
	}
	if c.Params()["durability"] != "none" {
		t.Fatalf("params durability %v", c.Params()["durability"])
	}
	exercise(t, c)
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := ctl.Control(context.Background()); err == nil {
		t.Fatal("control after close succeeded: the server is still up")
	}
}

func TestRESTBadDurability(t *testing.T) {
	if _, err := newCompetitor(t, "rest", Config{Dir: t.TempDir(), Durability: "sometimes"}); err == nil {
		t.Fatal("bad durability accepted")
	}
}

// TestRESTRemoteSharesConnections benchmarks a server by URL with a
// credential and checks the catalog's requests, the token request and
// Control all ride one keep-alive connection.
func TestRESTRemoteSharesConnections(t *testing.T) {
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	srv, err := restserver.New(cat, restserver.Options{Credential: "kb:s3cr3t", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	hs := &http.Server{Handler: srv, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { _ = hs.Close() })
	u := "http://" + l.Addr().String()

	if _, err := newCompetitor(t, "rest", Config{Args: []string{u}, Props: map[string]string{"credential": "kb:wrong"}}); err == nil {
		t.Fatal("wrong credential accepted")
	}
	before := conns.Load()
	c, err := newCompetitor(t, "rest", Config{Args: []string{u}, Props: map[string]string{"credential": "kb:s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, leaked := c.Params()["prop.credential"]; leaked {
		t.Fatal("credential copied into params")
	}
	if e, ok := As[Ephemeral](c); !ok || e.Ephemeral() {
		t.Fatal("a remote server is not ephemeral")
	}
	ctl, _ := As[Controller](c)
	exercise(t, c)
	for range 10 {
		if err := ctl.Control(context.Background()); err != nil {
			t.Fatalf("control: %v", err)
		}
		if _, err := c.Catalog().CheckTableExists(context.Background(), table.Identifier{"kb", "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load() - before; n != 1 {
		t.Fatalf("%d connections for sequential requests, want 1 shared keep-alive connection", n)
	}
}

func TestRemoteRESTConfigErrors(t *testing.T) {
	for _, env := range []string{"KATBENCH_NESSIE_URL", "KATBENCH_NESSIE_WAREHOUSE", "KATBENCH_POLARIS_URL", "KATBENCH_POLARIS_WAREHOUSE", "KATBENCH_FIXTURE_URL", "BENCH_REST_PROPS"} {
		t.Setenv(env, "")
	}
	// A port nothing listens on: reserve one and close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()

	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"nessie", Config{}, "containers/nessie_up.sh"},
		{"polaris", Config{Args: []string{"http://127.0.0.1:1/api/catalog"}}, "no warehouse"},
		{"nessie", Config{Args: []string{"ftp://x", "wh"}}, "not an http(s) URL"},
		{"fixture", Config{Args: []string{dead}}, "containers/fixture_up.sh"},
		{"polaris", Config{Args: []string{"a", "b", "c"}}, "too many arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+tc.want, func(t *testing.T) {
			_, err := newCompetitor(t, tc.name, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestRESTEnvEndpointAndProps(t *testing.T) {
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	srv, err := restserver.New(cat, restserver.Options{Credential: "a:b", Warehouse: "wh", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })

	t.Setenv("KATBENCH_FIXTURE_URL", "http://"+l.Addr().String())
	t.Setenv("KATBENCH_FIXTURE_WAREHOUSE", "wh")
	t.Setenv("BENCH_REST_PROPS", "credential=a:wrong, x.global=1,broken")
	t.Setenv("KATBENCH_FIXTURE_PROPS", "credential=a:b,x.name=2")
	var log strings.Builder
	c, err := newCompetitor(t, "fixture", Config{Props: map[string]string{"x.flag": "3"}, Log: &log})
	if err != nil {
		t.Fatalf("fixture from env: %v", err)
	}
	p := c.Params()
	if p["prop.x.global"] != "1" || p["prop.x.name"] != "2" || p["prop.x.flag"] != "3" || p["prop.warehouse"] != "wh" {
		t.Fatalf("params %v miss merged props", p)
	}
	if !strings.Contains(log.String(), "broken") {
		t.Fatalf("malformed prop not reported: %q", log.String())
	}
	if h, ok := As[WarmupHinter](c); !ok || h.WarmupHint() <= 0 {
		t.Fatal("fixture (a JVM server) asks for no warm-up")
	}
	ctl, _ := As[Controller](c)
	if err := ctl.Control(context.Background()); err != nil {
		t.Fatalf("control with warehouse and token: %v", err)
	}

	t.Setenv("KATBENCH_FIXTURE_WAREHOUSE", "elsewhere")
	if _, err := newCompetitor(t, "fixture", Config{}); err == nil {
		t.Fatal("a warehouse the server refuses was accepted")
	}
}

// TestTimeoutTransport checks a stuck server costs a bounded, failed
// request. A real server cannot be made to hang on cue; this handler can.
func TestTimeoutTransport(t *testing.T) {
	release := make(chan struct{})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { close(release); _ = hs.Close() })

	tr := newRESTTransport()
	tr.timeout = 50 * time.Millisecond
	_, err = (&http.Client{Transport: tr}).Get("http://" + l.Addr().String())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stuck server: %v, want a deadline error", err)
	}
}
