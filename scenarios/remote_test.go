package scenarios_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// openCatalog opens a real embedded catalog in a temp dir.
func openCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// serveREST serves cat with our REST front (what `katbench serve rest`
// runs) on loopback and returns its URL.
func serveREST(t *testing.T, cat icecatalog.Catalog) string {
	t.Helper()
	srv, err := restserver.New(cat, restserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

// serveGRPC serves cat with our gRPC front (what `katbench serve grpc`
// runs) on loopback and returns its address.
func serveGRPC(t *testing.T, cat icecatalog.Catalog) string {
	t.Helper()
	srv, err := grpcfront.NewServer(cat, grpcfront.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

// leftovers lists every namespace and table on cat.
func leftovers(t *testing.T, cat icecatalog.Catalog) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var walk func(parent table.Identifier)
	walk = func(parent table.Identifier) {
		nss, err := cat.ListNamespaces(ctx, parent)
		if err != nil {
			t.Fatalf("list namespaces %v: %v", parent, err)
		}
		for _, ns := range nss {
			out = append(out, strings.Join(ns, "."))
			for id, err := range cat.ListTables(ctx, ns) {
				if err != nil {
					t.Fatalf("list tables %v: %v", ns, err)
				}
				out = append(out, strings.Join(id, "."))
			}
			walk(ns)
		}
	}
	walk(nil)
	return out
}

// TestRemoteTargetsRunAndLeaveNothing: `katbench rest URL` and `katbench
// grpc HOST:PORT` against a running server of ours run every scenario they
// can (the durability sweep is skipped: a remote server runs in its own
// mode), exit cleanly, and leave the server as they found it.
func TestRemoteTargetsRunAndLeaveNothing(t *testing.T) {
	for _, c := range []struct {
		name  string
		serve func(*testing.T, icecatalog.Catalog) string
	}{{"rest", serveREST}, {"grpc", serveGRPC}} {
		t.Run(c.name, func(t *testing.T) {
			cat := openCatalog(t)
			if err := cat.CreateNamespace(context.Background(), table.Identifier{"theirs"}, nil); err != nil {
				t.Fatal(err)
			}
			tg := target(t, c.name)
			tg.Config.Args = []string{c.serve(t, cat)}
			var coll results.Collector
			r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: tinyOptions()}
			if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{tg}); err != nil {
				t.Fatalf("remote run failed: %v", err)
			}
			got := byKey(coll.Records)
			for _, sc := range scenarios.Plan(tinyOptions().Threads) {
				rec, ok := got[c.name+" "+sc.Name]
				switch {
				case !ok:
					t.Errorf("no line for %s", sc.Name)
				case sc.Kind == bench.KindDurability:
					if !strings.Contains(rec.Skipped, "durability") {
						t.Errorf("%s on a remote server: skipped = %q, want a skip naming durability", sc.Name, rec.Skipped)
					}
				case sc.Name == "resolve_metadata.latency" && c.name == "rest",
					skipsReason(c.name, sc.Name, rec.Skipped),
					sc.Name == "load_table.cold.latency" && strings.Contains(rec.Skipped, "reopened"):
				case rec.Skipped != "" || rec.Errors != 0:
					t.Errorf("%s: skipped %q, errors %d (%s)", sc.Name, rec.Skipped, rec.Errors, rec.FirstError)
				}
			}
			if left := leftovers(t, cat); len(left) != 1 || left[0] != "theirs" {
				t.Errorf("server holds %v after the run, want only the namespace it had before", left)
			}
		})
	}
}

// flakyCatalog fails a share of creates with a plain error, which our REST
// front answers with 500 — the way the Apache fixture answers SQLITE_BUSY —
// after doing nothing, or (every other failure) after creating the object,
// as a server that commits and then fails to answer does. It also fails
// when more than maxConc creates run at once.
type flakyCatalog struct {
	icecatalog.Catalog
	n, conc atomic.Int64
	maxConc int64
	mu      sync.Mutex
	over    bool
}

var errBusy = errors.New("database is locked (SQLITE_BUSY)")

func (f *flakyCatalog) fault(do func() error) error {
	if c := f.conc.Add(1); f.maxConc > 0 && c > f.maxConc {
		f.mu.Lock()
		f.over = true
		f.mu.Unlock()
	}
	defer f.conc.Add(-1)
	switch n := f.n.Add(1); {
	case n%7 == 3:
		return errBusy
	case n%7 == 5:
		if err := do(); err != nil {
			return err
		}
		return errBusy
	}
	return do()
}

func (f *flakyCatalog) CreateNamespace(ctx context.Context, ns table.Identifier, p iceberg.Properties) error {
	return f.fault(func() error { return f.Catalog.CreateNamespace(ctx, ns, p) })
}

func (f *flakyCatalog) CreateTable(ctx context.Context, id table.Identifier, s *iceberg.Schema, opts ...icecatalog.CreateTableOpt) (*table.Table, error) {
	var tbl *table.Table
	err := f.fault(func() error {
		var err error
		tbl, err = f.Catalog.CreateTable(ctx, id, s, opts...)
		return err
	})
	return tbl, err
}

// TestTransientSetupErrorsAreRetried: a server that answers some setup
// requests with a 500 (before or after doing the work) still gets its whole
// dataset, and the run leaves nothing behind.
func TestTransientSetupErrorsAreRetried(t *testing.T) {
	flaky := &flakyCatalog{Catalog: openCatalog(t)}
	tg := target(t, "rest")
	tg.Config.Args = []string{serveREST(t, flaky)}
	o := tinyOptions()
	o.Select, _ = scenarios.ParseSelector("table_exists.latency", o.Threads)
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{tg}); err != nil {
		t.Fatalf("run failed: %v", err)
	}
	if len(coll.Records) != 1 {
		t.Fatalf("lines: %+v", coll.Records)
	}
	rec := coll.Records[0]
	if rec.Skipped != "" || rec.Params["tables"] != o.Shape.Tables() {
		t.Fatalf("table_exists: skipped %q, tables %v; want all %d tables built despite 500s", rec.Skipped, rec.Params["tables"], o.Shape.Tables())
	}
	if left := leftovers(t, flaky.Catalog); len(left) != 0 {
		t.Errorf("server holds %v after the run", left)
	}
}

// TestSetupParallelIsTheCompetitorsLimit: a factory that tolerates one
// setup worker gets one, whatever --setup-parallel says, and the line says
// so.
func TestSetupParallelIsTheCompetitorsLimit(t *testing.T) {
	flaky := &flakyCatalog{Catalog: openCatalog(t), maxConc: 1}
	rest, err := competitors.Lookup("rest")
	if err != nil {
		t.Fatal(err)
	}
	rest.SetupParallel = 1
	tg := scenarios.CompetitorSetup{Factory: rest, Config: competitors.Config{Dir: t.TempDir(), Args: []string{serveREST(t, flaky)}}}
	o := tinyOptions()
	o.Parallel = 8
	o.Shape = dataset.Shape{Width: 2, Depth: 1, TablesPerLeaf: 20}
	o.Select, _ = scenarios.ParseSelector("table_exists.latency", o.Threads)
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{tg}); err != nil {
		t.Fatal(err)
	}
	if flaky.over {
		t.Error("more than one setup request ran at once")
	}
	if p := coll.Records[0].Params["setup_parallel"]; p != 1 {
		t.Errorf("params.setup_parallel = %v, want 1", p)
	}
}

// TestFailedRunDropsWhatItCreated: a run that ends early (here: cancelled
// after its first line) still drops its dataset and the tables its
// scenarios made.
func TestFailedRunDropsWhatItCreated(t *testing.T) {
	cat := openCatalog(t)
	tg := target(t, "rest")
	tg.Config.Args = []string{serveREST(t, cat)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := tinyOptions()
	o.Select, _ = scenarios.ParseSelector("create_table.latency,commit_table.latency", o.Threads)
	lines := 0
	sink := results.SinkFunc(func(results.Record) error {
		lines++
		cancel()
		return nil
	})
	r := &scenarios.Runner{Run: results.NewRun(), Sink: sink, Opts: o}
	if err := r.Execute(ctx, []scenarios.CompetitorSetup{tg}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute = %v, want context.Canceled", err)
	}
	if lines != 1 {
		t.Fatalf("lines = %d, want 1 before the cancel took effect", lines)
	}
	if left := leftovers(t, cat); len(left) != 0 {
		t.Errorf("server holds %v after the failed run", left)
	}
}
