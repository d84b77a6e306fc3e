package restserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
)

// benchServer serves a fresh embedded catalog holding table db.t and
// returns the base URL.
func benchServer(b *testing.B, generic bool) string {
	b.Helper()
	emb := newEmbedded(b)
	var cat icecatalog.Catalog = emb
	if generic {
		cat = plainCatalog{emb}
	}
	_, base := startServer(b, cat, Options{})
	cl := newClient(b, base)
	ctx := context.Background()
	if err := cl.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := cl.CreateTable(ctx, table.Identifier{"db", "t"}, testSchema); err != nil {
		b.Fatal(err)
	}
	return base
}

// BenchmarkLoadTable is a warm load_table through iceberg-go's REST client
// over loopback: the path the `rest` competitor measures.
func BenchmarkLoadTable(b *testing.B) {
	for _, mode := range []struct {
		name    string
		generic bool
	}{{"splice", false}, {"encode", true}} {
		b.Run(mode.name, func(b *testing.B) {
			cl := newClient(b, benchServer(b, mode.generic))
			ctx, ident := context.Background(), table.Identifier{"db", "t"}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := cl.LoadTable(ctx, ident); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadTableParallel is BenchmarkLoadTable with 4×GOMAXPROCS
// goroutines sharing one client whose pool keeps a connection per
// goroutine (net/http's default keeps 2, and the rest reconnect per call).
func BenchmarkLoadTableParallel(b *testing.B) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(tr.CloseIdleConnections)
	cl := newClient(b, benchServer(b, false), rest.WithCustomTransport(tr))
	ctx, ident := context.Background(), table.Identifier{"db", "t"}
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cl.LoadTable(ctx, ident); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkServerGET measures raw GETs (no client-side parsing) of the
// config (the control floor), a table (spliced and encoded) and HEAD of a
// table, so the server's share of a load_table is visible.
func BenchmarkServerGET(b *testing.B) {
	splice, encode := benchServer(b, false), benchServer(b, true)
	cases := []struct{ name, method, url string }{
		{"config", http.MethodGet, splice + "/v1/config"},
		{"head_table", http.MethodHead, splice + "/v1/namespaces/db/tables/t"},
		{"load_table_splice", http.MethodGet, splice + "/v1/namespaces/db/tables/t"},
		{"load_table_encode", http.MethodGet, encode + "/v1/namespaces/db/tables/t"},
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			req, err := http.NewRequest(tc.method, tc.url, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// BenchmarkHandler runs the handler without a network, to separate the
// server's own CPU from the kernel's loopback and net/http's connection
// handling.
func BenchmarkHandler(b *testing.B) {
	emb := newEmbedded(b)
	srv, err := New(emb, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := emb.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := emb.CreateTable(ctx, table.Identifier{"db", "t"}, testSchema); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		srv  *Server
	}{{"splice", srv}, {"encode", mustNew(b, plainCatalog{emb})}} {
		b.Run("load_table_"+tc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, "/v1/namespaces/db/tables/t", nil)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				tc.srv.ServeHTTP(w, req)
				if w.code != http.StatusOK {
					b.Fatalf("status %d", w.code)
				}
			}
		})
	}
}

func mustNew(b *testing.B, cat icecatalog.Catalog) *Server {
	s, err := New(cat, Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// discardWriter is a ResponseWriter that keeps only the status.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkLoadHistory is a raw GET of the load-table route (the answer
// read whole, not decoded: the server's and the wire's cost) of tables of
// 0, 100 and 1,000 snapshots, in each snapshots mode, and the 304 of a
// revalidation, so the front's growth with history is visible; and the
// same loads through the handler alone (handler-*), without a network.
func BenchmarkLoadHistory(b *testing.B) {
	emb := newEmbedded(b)
	srv, base := startServer(b, emb, Options{})
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	for _, n := range []int{0, 100, 1000} {
		name := fmt.Sprintf("h%d", n)
		historyTable(b, emb, name, n)
		u := base + "/v1/namespaces/db/tables/" + name
		for _, c := range []struct {
			name, query string
			revalidate  bool
		}{{"all", "?snapshots=all", false}, {"refs", "?snapshots=refs", false}, {"304", "", true}} {
			b.Run(fmt.Sprintf("snapshots=%d/%s", n, c.name), func(b *testing.B) {
				req, err := http.NewRequest(http.MethodGet, u+c.query, nil)
				if err != nil {
					b.Fatal(err)
				}
				if c.revalidate {
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
				}
				b.ReportAllocs()
				var bytes int64
				for b.Loop() {
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					bytes += n
					if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotModified {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
				b.ReportMetric(float64(bytes)/float64(b.N), "body-B/op")
			})
			b.Run(fmt.Sprintf("snapshots=%d/handler-%s", n, c.name), func(b *testing.B) {
				req, _ := http.NewRequest(http.MethodGet, "/v1/namespaces/db/tables/"+name+c.query, nil)
				w := &discardWriter{h: http.Header{}}
				if c.revalidate {
					srv.ServeHTTP(w, req)
					req.Header.Set("If-None-Match", w.h.Get("ETag"))
				}
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					srv.ServeHTTP(w, req)
					if w.code != http.StatusOK && w.code != http.StatusNotModified {
						b.Fatalf("status %d", w.code)
					}
				}
			})
		}
	}
}
