package scenarios_test

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/uptrace/bun/driver/sqliteshim"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

func tinyOptions() scenarios.Options {
	o := scenarios.Defaults(true)
	o.Full = true // every scenario, the sweeps included
	o.Shape = dataset.Shape{Width: 2, Depth: 1, TablesPerLeaf: 5}
	o.Namespace = "katbench_test"
	o.LatencyOps = 60
	o.CreateOps = 8
	o.Warmup = 5 * time.Millisecond
	o.Duration = 50 * time.Millisecond
	o.Threads = []int{1, 2}
	o.ServerWarmup = 20 * time.Millisecond
	// The open-loop reads run too (they run only at a requested rate).
	o.Rate, o.OpenWorkers = 1000, 4
	return o
}

// runTargets runs o's selected scenarios on the named targets and returns
// the collected lines.
func runTargets(t *testing.T, o scenarios.Options, names ...string) *results.Collector {
	t.Helper()
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	var tgs []scenarios.CompetitorSetup
	for _, name := range names {
		tgs = append(tgs, target(t, name))
	}
	if err := r.Execute(context.Background(), tgs); err != nil {
		t.Fatal(err)
	}
	return &coll
}

func target(t *testing.T, name string) scenarios.CompetitorSetup {
	t.Helper()
	f, err := competitors.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return scenarios.CompetitorSetup{Factory: f, Config: competitors.Config{Dir: t.TempDir()}}
}

func byKey(recs []results.Record) map[string]results.Record {
	m := map[string]results.Record{}
	for _, r := range recs {
		m[r.Target+" "+r.Scenario] = r
	}
	return m
}

// TestRunnerDrivesEveryCompetitorIdentically runs the whole scenario list on
// the embedded catalog and iceberg-go's SQL catalog (real bbolt and SQLite
// files) and checks every line.
func TestRunnerDrivesEveryCompetitorIdentically(t *testing.T) {
	o := tinyOptions()
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded"), target(t, "sql")}); err != nil {
		t.Fatal(err)
	}
	got := byKey(coll.Records)
	for _, tg := range []string{"embedded", "sql"} {
		for _, sc := range scenarios.Plan(o.Threads) {
			name := sc.Name
			rec, ok := got[tg+" "+name]
			if !ok {
				t.Errorf("%s: no line for %s", tg, name)
				continue
			}
			if rec.Kind != string(sc.Kind) || rec.Metric != sc.Metric || rec.Better != sc.Metric.Better() || rec.Threads != sc.Threads {
				t.Errorf("%s %s: kind/metric/better/threads = %s/%s/%s/%d, want the registration's %s/%s/%s/%d",
					tg, name, rec.Kind, rec.Metric, rec.Better, rec.Threads, sc.Kind, sc.Metric, sc.Metric.Better(), sc.Threads)
			}
			// Every catalog scenario declares its worker count, and each
			// line, skipped or not, carries exactly that.
			if !slices.Equal(sc.Dims, []bench.Dimension{bench.DimThreads}) || !maps.Equal(rec.Dims, results.Dims{results.DimThreads: float64(sc.Threads)}) {
				t.Errorf("%s %s: declares %v, dims %v; want threads %d", tg, name, sc.Dims, rec.Dims, sc.Threads)
			}
			_, lacks := skipsDiscovery(tg, name)
			skippable := lacks || tg == "sql" && (name == "resolve_metadata.latency" || sc.Kind == bench.KindDurability)
			if rec.Skipped != "" {
				if !skippable {
					t.Errorf("%s %s skipped: %s", tg, name, rec.Skipped)
				}
				continue
			}
			if skippable {
				t.Errorf("%s %s ran, want skipped", tg, name)
			}
			if rec.Ops == 0 || rec.Errors != 0 {
				t.Errorf("%s %s: ops=%d errors=%d first_error=%q", tg, name, rec.Ops, rec.Errors, rec.FirstError)
			}
			h, err := results.DecodeHist(rec.Hist)
			if err != nil || h.Count() != rec.Ops {
				t.Errorf("%s %s: hist count %v (err %v), want %d", tg, name, h, err, rec.Ops)
			}
			if rec.P50US <= 0 || rec.P99US < rec.P50US || rec.MaxUS < rec.P999US {
				t.Errorf("%s %s: percentiles out of order: p50=%v p99=%v p999=%v max=%v", tg, name, rec.P50US, rec.P99US, rec.P999US, rec.MaxUS)
			}
			if rec.Params["server_warmup_s"] != 0.02 {
				t.Errorf("%s %s: params.server_warmup_s = %v, want 0.02", tg, name, rec.Params["server_warmup_s"])
			}
			if rec.Params["tables"] != 10 {
				t.Errorf("%s %s: params.tables = %v, want 10", tg, name, rec.Params["tables"])
			}
		}
	}
	for _, name := range []string{"load_table.latency", "table_exists.latency", "create_table.latency", "create_namespace.latency", "commit_table.latency"} {
		if n := got["embedded "+name].Ops; strings.HasPrefix(name, "create") || strings.HasPrefix(name, "commit") {
			if n != int64(o.CreateOps) {
				t.Errorf("embedded %s ops = %d, want %d", name, n, o.CreateOps)
			}
		} else if n != int64(o.LatencyOps) {
			t.Errorf("embedded %s ops = %d, want %d", name, n, o.LatencyOps)
		}
	}
	if got["sql resolve_metadata.latency"].Skipped == "" {
		t.Error("sql has no metadata resolver, yet resolve_metadata was not skipped")
	}
	for _, m := range scenarios.DurabilityModes {
		if d := got["embedded create_table.durability."+m].Params["durability"]; d != m {
			t.Errorf("durability sweep %s: params.durability = %v", m, d)
		}
	}
}

// TestSelectorLimitsScenarios: only selected scenarios produce lines.
func TestSelectorLimitsScenarios(t *testing.T) {
	o := tinyOptions()
	sel, err := scenarios.ParseSelector("table_exists.*,load_table.throughput.t2", o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded")}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rec := range coll.Records {
		names = append(names, rec.Scenario)
	}
	if strings.Join(names, " ") != "table_exists.latency load_table.throughput.t2" {
		t.Fatalf("scenarios run = %v", names)
	}
}

func TestParseSelectorRejectsUnknown(t *testing.T) {
	for _, g := range []string{"nope", "load_table.[", "s3.*"} {
		if _, err := scenarios.ParseSelector(g, scenarios.DefaultThreads); err == nil {
			t.Errorf("ParseSelector(%q) = nil error", g)
		}
	}
}

// TestRefusedTablesSkipStorageScenarios: a catalog that refuses to create
// tables (here a real SQL catalog whose warehouse scheme has no FileIO, as
// Nessie refuses file: warehouses) still gets table_exists measured, and
// every scenario that needs tables is a skipped line carrying the error.
func TestRefusedTablesSkipStorageScenarios(t *testing.T) {
	f := competitors.Factory{Name: "sql-nowarehouse", New: func(ctx context.Context, cfg competitors.Config) (competitors.Competitor, error) {
		cat, err := icecatalog.Load(ctx, "t", iceberg.Properties{
			"type": "sql", "uri": "file:" + filepath.Join(cfg.Dir, "c.db"),
			sqlcat.DriverKey: sqliteshim.ShimName, sqlcat.DialectKey: string(sqlcat.SQLite),
			"warehouse": "nowhere://bucket/wh",
		})
		if err != nil {
			return nil, err
		}
		return &competitors.Base{TargetName: "sql-nowarehouse", Cat: cat, CloseFn: cat.(icecatalog.Closer).Close}, nil
	}}
	o := tinyOptions()
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{{Factory: f, Config: competitors.Config{Dir: t.TempDir()}}}); err != nil {
		t.Fatal(err)
	}
	got := byKey(coll.Records)
	ex := got["sql-nowarehouse table_exists.latency"]
	if ex.Skipped != "" || ex.Ops != int64(o.LatencyOps) || ex.Errors != 0 || ex.Params["hit_ratio"] != 0.0 {
		t.Fatalf("table_exists = %+v, want %d miss-only ops", ex, o.LatencyOps)
	}
	lt := got["sql-nowarehouse load_table.latency"]
	if !strings.Contains(lt.Skipped, "nowhere") {
		t.Fatalf("load_table skipped = %q, want the catalog's own error naming the scheme", lt.Skipped)
	}
}
