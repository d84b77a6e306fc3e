package dataplane

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/results"
)

// openEmbedded opens an embedded catalog in a temp dir on a file://
// warehouse.
func openEmbedded(t testing.TB, allowed ...string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None, AllowedLocations: allowed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}

func smallConfig() Config {
	return Config{
		Rows: 20_000, BatchRows: 3000, Rounds: 2, CommitOps: 5, CommitRows: 10,
		Compression: "snappy", TargetFileSize: 256 << 10,
		Run: results.NewRun(), Quick: true, Warehouse: "file", Namespace: "data_test",
	}
}

func TestRunOnEmbedded(t *testing.T) {
	cat := openEmbedded(t)
	cfg := smallConfig()
	cfg.MemoryLimit = AppendMemoryLimit(cfg.TargetFileSize)
	var coll results.Collector
	err := Run(context.Background(), cfg, []Lane{{Target: "embedded", Transport: "http", Requested: "http", Catalog: cat}}, &coll)
	if err != nil {
		t.Fatal(err)
	}
	recs := coll.Snapshot()
	if len(recs) != 3 {
		t.Fatalf("%d lines, want 3", len(recs))
	}
	byName := map[string]results.Record{}
	for _, r := range recs {
		byName[r.Scenario] = r
		if r.Errors != 0 || r.Target != "embedded" || r.Transport != "http" {
			t.Errorf("%s: errors %d target %q transport %q (%s)", r.Scenario, r.Errors, r.Target, r.Transport, r.FirstError)
		}
	}
	app := byName["data.append.20k"]
	if app.Ops != 2 || app.Params["rows_total"] != int64(40_000) {
		t.Errorf("append: ops %d rows_total %v, want 2 and 40000", app.Ops, app.Params["rows_total"])
	}
	if files, _ := app.MeasureValue("files"); files < 2 {
		t.Errorf("append wrote %v files; with a 256 KiB target at least one per append", files)
	}
	if b, _ := app.MeasureValue("parquet_bytes"); b <= 0 {
		t.Errorf("append parquet_bytes %v", app.Measures["parquet_bytes"])
	}
	if app.Params["row_group_bytes"] != RowGroupBytes(cfg.TargetFileSize) || app.Params["go_memory_limit_mib"] != float64(128) {
		t.Errorf("append: row_group_bytes %v go_memory_limit_mib %v, want %d and 128 (from the 256 KiB target)",
			app.Params["row_group_bytes"], app.Params["go_memory_limit_mib"], RowGroupBytes(cfg.TargetFileSize))
	}
	if rss, _ := app.MeasureValue("peak_rss_mib"); rss < 1 {
		t.Errorf("append peak_rss_mib %v", app.Measures["peak_rss_mib"])
	}
	scan := byName[ScanName]
	if scan.Ops != 2 || scan.Params["rows_total"] != int64(80_000) || scan.Measures["checksum_ok"].Value != 1 {
		t.Errorf("scan: ops %d rows_total %v checksum_ok %v; want 2 scans of 40000 rows, verified",
			scan.Ops, scan.Params["rows_total"], scan.Measures["checksum_ok"])
	}
	cl := byName[CommitLatency]
	if cl.Ops != 5 || cl.Params["snapshots"] != 5 {
		t.Errorf("commit latency: ops %d snapshots %v, want 5 and 5", cl.Ops, cl.Params["snapshots"])
	}
	// Run dropped its tables and namespace.
	if ok, err := cat.CheckNamespaceExists(context.Background(), table.Identifier{cfg.Namespace}); err != nil || ok {
		t.Errorf("namespace %s left behind (%v)", cfg.Namespace, err)
	}
}

func TestScanDetectsForeignRows(t *testing.T) {
	ctx := context.Background()
	cat := openEmbedded(t)
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	props, err := TableProps("zstd", 0)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", "events"}, Schema(), icecatalog.WithProperties(props))
	if err != nil {
		t.Fatal(err)
	}
	var want Checksum
	for _, r := range []struct {
		seed    uint64
		from, n int64
	}{{1, 0, 5000}, {1, 5000, 5000}} {
		rdr, err := NewReader(nil, r.seed, r.from, r.n, 1024)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Append(ctx, tbl, rdr)
		rdr.Release()
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != r.n || res.Files < 1 || res.Bytes <= 0 || res.Write <= 0 || res.Commit <= 0 {
			t.Fatalf("append result %+v", res)
		}
		tbl = res.Table
		want.AddRows(r.seed, r.from, r.n)
	}
	res, err := Scan(ctx, tbl, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(want, res.Sum); err != nil {
		t.Fatalf("clean table: %v", err)
	}
	if res.Rows != 10_000 || res.Files != 2 || res.Bytes <= 0 {
		t.Fatalf("scan result rows %d files %d bytes %d", res.Rows, res.Files, res.Bytes)
	}

	// One row of another seed with an id that exists: same row count as a
	// table where that row was overwritten would have plus one, and a
	// different value in every column.
	rdr, _ := NewReader(nil, 2, 42, 1, 1)
	res2, err := Append(ctx, tbl, rdr)
	rdr.Release()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Scan(ctx, res2.Table, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(want, got.Sum); !errors.Is(err, ErrChecksumMismatch) {
		t.Fatalf("table with a foreign row: Verify = %v, want a mismatch", err)
	}
}

func TestConfigRejectsBadValues(t *testing.T) {
	for _, mut := range []func(*Config){
		func(c *Config) { c.Rows = -1 },
		func(c *Config) { c.BatchRows = -5 },
		func(c *Config) { c.Rounds = -1 },
		func(c *Config) { c.Compression = "lz4" },
		func(c *Config) { c.TargetFileSize = -1 },
		func(c *Config) { c.CommitRows = -1 },
		func(c *Config) { c.Run = nil },
	} {
		c := smallConfig()
		mut(&c)
		if _, err := c.withDefaults(); !errors.Is(err, ErrBadOption) {
			t.Errorf("config %+v accepted: %v", c, err)
		}
	}
}

func TestParseRows(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"100k", 100_000}, {"2M", 2_000_000}, {"1_500", 1500}, {"7", 7}} {
		got, err := ParseRows(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseRows(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
		if back := FormatRows(got); c.in != "1_500" && back != c.in {
			t.Errorf("FormatRows(%d) = %q, want %q", got, back, c.in)
		}
	}
	for _, bad := range []string{"", "0", "-3", "1.5M", "k", "99999999999999999999", "10G"} {
		if _, err := ParseRows(bad); err == nil {
			t.Errorf("ParseRows(%q) accepted", bad)
		}
	}
}

// TestRunWithLocation: a lane's Location roots its tables; KeepTables
// leaves them in the catalog.
func TestRunWithLocation(t *testing.T) {
	root := t.TempDir()
	// A table location outside the warehouse must be an allowed root.
	cat := openEmbedded(t, "file://"+root)
	cfg := smallConfig()
	cfg.Rounds, cfg.CommitOps, cfg.KeepTables = 1, 1, true
	lane := Lane{Target: "embedded", Catalog: cat, Location: "file://" + root}
	if err := Run(context.Background(), cfg, []Lane{lane}, &results.Collector{}); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), table.Identifier{cfg.Namespace, "events"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "file://" + filepath.Join(root, cfg.Namespace, "events"); tbl.Location() != want {
		t.Errorf("table location %s, want %s", tbl.Location(), want)
	}
	if tbl.Properties()[table.ParquetCompressionKey] != "snappy" {
		t.Errorf("table properties %v lack the codec", tbl.Properties())
	}
	parquet, _ := filepath.Glob(filepath.Join(root, cfg.Namespace, "events", "data", "*.parquet"))
	if len(parquet) == 0 {
		t.Errorf("no Parquet files under the lane's location %s", root)
	}
}
