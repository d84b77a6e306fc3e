package competitors

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
)

func TestFactoryCheck(t *testing.T) {
	cases := []struct {
		name string
		args []string
		ok   bool
	}{
		{"embedded", nil, true},
		{"embedded", []string{"extra-arg"}, false},
		{"sql", []string{"x"}, false},
		{"rest", nil, true},
		{"rest", []string{"http://127.0.0.1:8181"}, true},
		{"rest", []string{"https://catalog.example.com/api/catalog"}, true},
		{"rest", []string{"http://[::1"}, false},
		{"rest", []string{"127.0.0.1:8181"}, false},
		{"rest", []string{"ftp://x"}, false},
		{"rest", []string{"http://:8181"}, false},
		{"rest", []string{"http://127.0.0.1:99999"}, false},
		{"rest", []string{"http://127.0.0.1:8181/?warehouse=x"}, false},
		{"rest", []string{"http://127.0.0.1:8181", "wh"}, false},
		{"nessie", []string{"http://127.0.0.1:19120/iceberg", "warehouse"}, true},
		{"polaris", []string{"http://127.0.0.1:8181/api/catalog", "katbench", "x"}, false},
		{"fixture", []string{"not a url"}, false},
		{"grpc", []string{"127.0.0.1:50051"}, true},
		{"grpc", []string{"127.0.0.1"}, false},
		{"grpc", []string{"127.0.0.1:0"}, false},
		{"grpc", []string{"a:1", "b:2"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+strings.Join(tc.args, ","), func(t *testing.T) {
			f, err := Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			err = f.Check(tc.args)
			if tc.ok && err != nil {
				t.Fatalf("Check(%q) = %v, want nil", tc.args, err)
			}
			if !tc.ok && !errors.Is(err, ErrBadArgs) {
				t.Fatalf("Check(%q) = %v, want ErrBadArgs", tc.args, err)
			}
		})
	}
}

// serveUnder serves our REST front under prefix (as Polaris serves under
// /api/catalog) and returns the server's root URL.
func serveUnder(t *testing.T, prefix string) string {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	srv, err := restserver.New(cat, restserver.Options{Warehouse: "wh", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, srv))
	mux.HandleFunc("/console/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>a console, not a catalog</html>")
	})
	hs := &http.Server{Handler: mux}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(l) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + l.Addr().String()
}

// TestRemoteRESTWrongBasePath: a URL without the server's REST path fails
// before any catalog call with what was expected; the full URL works.
func TestRemoteRESTWrongBasePath(t *testing.T) {
	for _, env := range []string{"BENCH_REST_PROPS", "KATBENCH_POLARIS_PROPS", "KATBENCH_NESSIE_PROPS"} {
		t.Setenv(env, "")
	}
	root := serveUnder(t, "/api/catalog")
	cases := []struct {
		name, url string
		want      []string // in the error; none means success
	}{
		{"polaris", root + "/api/catalog", nil},
		{"fixture", root + "/api/catalog", nil},
		{"polaris", root + "/api/catalog/", nil},
		{"polaris", root + "/catalog", []string{"404", "/v1/config", "/api/catalog"}},
		{"nessie", root + "/nessie", []string{"404", "/iceberg"}},
		{"polaris", root, []string{"404", "/api/catalog"}},
		{"polaris", root + "/console", []string{"not a JSON config", "/api/catalog"}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" "+strings.TrimPrefix(tc.url, root), func(t *testing.T) {
			c, err := newCompetitor(t, tc.name, Config{Args: []string{tc.url, "wh"}})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("full URL: %v", err)
				}
				if _, err := c.Catalog().ListNamespaces(context.Background(), nil); err != nil {
					t.Fatalf("list namespaces through %s: %v", tc.url, err)
				}
				return
			}
			if !errors.Is(err, ErrNotRESTCatalog) {
				t.Fatalf("error %v, want ErrNotRESTCatalog", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
