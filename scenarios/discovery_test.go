package scenarios_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// discoveryScenarios are the discovery, view and revalidation scenarios.
var discoveryScenarios = []string{
	"list_namespaces.latency", "list_tables.latency", "namespace_exists.latency", "load_namespace.latency",
	"update_namespace_properties.latency", "catalog_crawl",
	"create_view.latency", "load_view.latency", "view_exists.latency", "list_views.latency", "replace_view.latency",
	"load_table.revalidate.latency",
}

// skipsDiscovery reports whether target may skip scenario name for want
// of a capability, and the word its reason must carry.
func skipsDiscovery(target, name string) (string, bool) {
	view := strings.Contains(name, "view")
	switch {
	case name == "load_table.revalidate.latency" && target != "rest" && target != "grpc":
		return "conditional load", true
	case name == scenarios.DirectLoadName && target != "rest":
		return "REST", true
	case view && (target == "sql" || target == "grpc"):
		return "view", true
	}
	return "", false
}

// skipsReason reports whether target skipped scenario name for want of a
// capability, with a reason that says so.
func skipsReason(target, name, skipped string) bool {
	word, ok := skipsDiscovery(target, name)
	return ok && strings.Contains(skipped, word)
}

// TestDiscoveryViewsRevalidate runs the discovery, view and revalidation
// scenarios on the embedded catalog, our REST front over it (in-process,
// on loopback), iceberg-go's SQL catalog and our gRPC front, and checks
// every line: measured with no errors where the competitor can, skipped
// with the reason where it cannot, and every 304 counted on our front.
func TestDiscoveryViewsRevalidate(t *testing.T) {
	o := tinyOptions()
	o.Rate = 0
	o.ViewsPerLeaf = 3
	sel, err := scenarios.ParseSelector(strings.Join(discoveryScenarios, ","), o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	targets := []string{"embedded", "rest", "sql", "grpc"}
	var tgs []scenarios.CompetitorSetup
	for _, name := range targets {
		tgs = append(tgs, target(t, name))
	}
	if err := r.Execute(context.Background(), tgs); err != nil {
		t.Fatal(err)
	}
	got := byKey(coll.Records)
	if len(coll.Records) != len(targets)*len(discoveryScenarios) {
		t.Errorf("%d lines, want %d", len(coll.Records), len(targets)*len(discoveryScenarios))
	}
	for _, tg := range targets {
		for _, name := range discoveryScenarios {
			rec, ok := got[tg+" "+name]
			if !ok {
				t.Errorf("%s: no line for %s", tg, name)
				continue
			}
			if word, skips := skipsDiscovery(tg, name); skips {
				if !strings.Contains(rec.Skipped, word) {
					t.Errorf("%s %s: skipped = %q, want a reason naming %s", tg, name, rec.Skipped, word)
				}
				continue
			}
			if rec.Skipped != "" || rec.Ops == 0 || rec.Errors != 0 {
				t.Errorf("%s %s: skipped %q, ops %d, errors %d (%s)", tg, name, rec.Skipped, rec.Ops, rec.Errors, rec.FirstError)
			}
		}
		if rec := got[tg+" load_view.latency"]; rec.Skipped == "" && rec.Params["views_per_leaf"] != 3 {
			t.Errorf("%s load_view: params.views_per_leaf = %v, want 3", tg, rec.Params["views_per_leaf"])
		}
		crawl := got[tg+" catalog_crawl"]
		// 1 root + work + 2 leaves; every dataset table loaded, plus
		// none made by other scenarios (only these ran).
		if crawl.Params["crawl_namespaces"] != 4 || crawl.Params["crawl_tables"] != 10 {
			t.Errorf("%s catalog_crawl: crawled %v namespaces and %v tables, want 4 and 10",
				tg, crawl.Params["crawl_namespaces"], crawl.Params["crawl_tables"])
		}
		// Per call: 4 namespace listings, 4 table listings, 10 loads.
		if crawl.Ops != 18 || crawl.DurationS <= 0 {
			t.Errorf("%s catalog_crawl: %d calls in %vs, want 18 calls", tg, crawl.Ops, crawl.DurationS)
		}
		// What the process did during the crawl: the collector's work and
		// the allocations per call, in-process servers included.
		if _, ok := crawl.MeasureValue("gc_cycles"); !ok {
			t.Errorf("%s catalog_crawl: no gc_cycles measure (measures %v)", tg, crawl.Measures)
		}
		if h, ok := crawl.MeasureValue("gc_live_heap_bytes"); !ok || h <= 0 {
			t.Errorf("%s catalog_crawl: gc_live_heap_bytes = %v, %v; want the live heap", tg, h, ok)
		}
		// (The runtime's allocation counter advances in whole spans, so a
		// crawl this small may count none: present, not positive.)
		if crawl.Counters == nil || crawl.Counters.Allocs == nil {
			t.Errorf("%s catalog_crawl: counters %+v; want the allocations per call", tg, crawl.Counters)
		}
	}
	rv := got["rest load_table.revalidate.latency"]
	if rv.Params["not_modified_ratio"] != 1.0 || rv.Params["request"] != "direct If-None-Match" || rv.Params["server_sent_tag"] != true {
		t.Errorf("rest revalidate params = %v; want every answer a 304 to a direct If-None-Match", rv.Params)
	}
	if ps := got["rest list_tables.latency"].Params; ps["page_size"] != scenarios.ListPageSize || ps["leaf_tables"] != 5 {
		t.Errorf("rest list_tables: page_size %v, leaf_tables %v; want %d and 5", ps["page_size"], ps["leaf_tables"], scenarios.ListPageSize)
	}
	if _, paged := got["embedded list_tables.latency"].Params["page_size"]; paged {
		t.Error("embedded list_tables has a page_size, but the embedded catalog does not page")
	}
}

// noETags is a REST server without freshness support: it never sees an
// If-None-Match and never sends an ETag, as servers without ETag support
// (Nessie 0.99) answer.
type noETags struct{ h http.Handler }

func (n noETags) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Header.Del("If-None-Match")
	n.h.ServeHTTP(stripETag{w}, r)
}

// stripETag drops the ETag header before the answer is sent.
type stripETag struct{ http.ResponseWriter }

func (s stripETag) WriteHeader(code int) {
	s.Header().Del("Etag")
	s.ResponseWriter.WriteHeader(code)
}

func (s stripETag) Write(b []byte) (int, error) {
	s.Header().Del("Etag")
	return s.ResponseWriter.Write(b)
}

// TestRevalidateWithoutETags: a REST server that never answers 304 is
// measured all the same, its ratio 0 on the line.
func TestRevalidateWithoutETags(t *testing.T) {
	srv, err := restserver.New(openCatalog(t), restserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(noETags{srv})
	t.Cleanup(hs.Close)
	tg := target(t, "rest")
	tg.Config.Args = []string{hs.URL}
	o := tinyOptions()
	o.Select, _ = scenarios.ParseSelector("load_table.revalidate.latency", o.Threads)
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{tg}); err != nil {
		t.Fatal(err)
	}
	if len(coll.Records) != 1 {
		t.Fatalf("lines: %+v", coll.Records)
	}
	rec := coll.Records[0]
	if rec.Skipped != "" || rec.Ops != int64(o.LatencyOps) || rec.Errors != 0 {
		t.Fatalf("revalidate: skipped %q, ops %d, errors %d (%s)", rec.Skipped, rec.Ops, rec.Errors, rec.FirstError)
	}
	if rec.Params["not_modified_ratio"] != 0.0 || rec.Params["server_sent_tag"] != false {
		t.Errorf("params = %v; want not_modified_ratio 0 and no tag sent", rec.Params)
	}
	if b, _ := rec.Params["mean_answer_bytes"].(float64); b <= 0 {
		t.Errorf("mean_answer_bytes = %v; want the full tables received", rec.Params["mean_answer_bytes"])
	}
}

// TestListTablesFirstPage: over REST the first page is page_size tables
// of a larger namespace; the embedded catalog and the
// gRPC client, which do not page, say so in params; every line measures
// with no errors (each operation checks it got a page's worth).
func TestListTablesFirstPage(t *testing.T) {
	o := tinyOptions()
	o.Rate = 0
	o.PageSize = 2 // a leaf holds 5 tables: the first page is a real page
	sel, err := scenarios.ParseSelector("list_tables.first_page.latency", o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	targets := []string{"embedded", "rest", "grpc"}
	coll := runTargets(t, o, targets...)
	got := byKey(coll.Records)
	for _, tg := range targets {
		rec, ok := got[tg+" list_tables.first_page.latency"]
		if !ok {
			t.Fatalf("%s: no first-page line", tg)
		}
		if rec.Skipped != "" || rec.Ops == 0 || rec.Errors != 0 {
			t.Errorf("%s: skipped %q, ops %d, errors %d (%s)", tg, rec.Skipped, rec.Ops, rec.Errors, rec.FirstError)
		}
		if rec.Params["first_page_tables"] != 2 || rec.Params["leaf_tables"] != 5 {
			t.Errorf("%s: first_page_tables %v of leaf_tables %v, want 2 of 5", tg, rec.Params["first_page_tables"], rec.Params["leaf_tables"])
		}
		_, unpaged := rec.Params["first_page"]
		if paged := rec.Params["page_size"] == 2; paged == unpaged || paged != (tg == "rest") {
			t.Errorf("%s: page_size %v, first_page %q; want a page size for rest only, the reason elsewhere", tg, rec.Params["page_size"], rec.Params["first_page"])
		}
	}
}
