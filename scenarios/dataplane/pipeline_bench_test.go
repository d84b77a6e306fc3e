package dataplane

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	icecatalog "github.com/apache/iceberg-go/catalog"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// benchRows is the rows per append of the pipeline benchmarks.
const benchRows = 200_000

// newBenchTable creates an events table on a fresh embedded catalog whose
// s3:// warehouse is on an in-process control S3 store, so the profile shows
// the whole path: Arrow, Parquet, the S3 client and transport (net/http, or
// io_uring with KATBENCH_TRANSPORT=uring).
func newBenchTable(b *testing.B) *table.Table { return newBenchTableOn(b, "s3") }

// newBenchTableOn is newBenchTable with the warehouse on S3 ("s3") or on
// local memory ("local": a file:// warehouse on tmpfs, /dev/shm, when there
// is one, else the test's temp dir): the same iceberg-go append and scan
// with no S3 request at all.
func newBenchTableOn(b *testing.B, where string) *table.Table {
	b.Helper()
	ctx := context.Background()
	if where == "local" {
		root := "/dev/shm"
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			root = ""
		}
		dir, err := os.MkdirTemp(root, "katbench-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		cat, err := catalog.Open(ctx, catalog.Options{Dir: filepath.Join(dir, "cat"), Durability: catalog.None, Warehouse: "file://" + filepath.Join(dir, "wh")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cat.Close() })
		return createBenchTable(b, cat)
	}
	ctl, err := s3.StartControl()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ctl.Close() })
	b.Cleanup(s3io.CloseIdle)
	props := map[string]string{
		icebergio.S3EndpointURL: ctl.URL(), icebergio.S3AccessKeyID: "k", icebergio.S3SecretAccessKey: "s",
		icebergio.S3Region: "us-east-1",
	}
	fsys, err := s3io.New(props)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := fsys.EnsureBucket(ctx, "benchbucket"); err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.Open(ctx, catalog.Options{Dir: b.TempDir(), Durability: catalog.None, Warehouse: "s3://benchbucket/wh", IOProps: props})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cat.Close() })
	return createBenchTable(b, cat)
}

// createBenchTable makes the events table the pipeline benchmarks use.
func createBenchTable(b *testing.B, cat *catalog.Catalog) *table.Table {
	b.Helper()
	ctx := context.Background()
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	tprops, _ := TableProps("zstd", 0)
	tbl, err := cat.CreateTable(ctx, table.Identifier{"bench", "events"}, Schema(), icecatalog.WithProperties(tprops))
	if err != nil {
		b.Fatal(err)
	}
	return tbl
}

// BenchmarkGenerate is the generator alone: the floor under append.
func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		r, _ := NewReader(nil, 1, 0, benchRows, DefaultBatchRows)
		for r.Next() {
		}
		r.Release()
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkAppend appends benchRows per iteration; rows/s and MiB/s of
// Parquet are reported.
func BenchmarkAppend(b *testing.B) { benchAppend(b, newBenchTable(b)) }

// BenchmarkScan scans a table of 2 × benchRows rows with checksums.
func BenchmarkScan(b *testing.B) { benchScan(b, newBenchTable(b)) }

// BenchmarkWhere is BenchmarkAppend and BenchmarkScan with the warehouse
// on the in-process S3 store and on local memory, side by side (go test
// runs a sub-benchmark's -count repeats back to back, so alternate with a
// loop of -count 1 runs): s3/local is the share of the rate the S3 path
// leaves, and local alone is the Parquet work's own rate, the most any
// store could give.
func BenchmarkWhere(b *testing.B) {
	for _, op := range []string{"append", "scan"} {
		for _, where := range []string{"s3", "local"} {
			b.Run(op+"/"+where, func(b *testing.B) {
				tbl := newBenchTableOn(b, where)
				if op == "append" {
					benchAppend(b, tbl)
				} else {
					benchScan(b, tbl)
				}
			})
		}
	}
}

func benchAppend(b *testing.B, tbl *table.Table) {
	var bytes int64
	i := int64(0)
	for b.Loop() {
		r, _ := NewReader(nil, 1, i*benchRows, benchRows, DefaultBatchRows)
		r.LimitLive(LiveBatches) // as the data.append scenario does
		res, err := Append(context.Background(), tbl, r)
		r.Release()
		if err != nil {
			b.Fatal(err)
		}
		tbl, bytes = res.Table, bytes+res.Bytes
		i++
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(bytes)/(1<<20)/b.Elapsed().Seconds(), "MiB/s")
}

func benchScan(b *testing.B, tbl *table.Table) {
	for i := range int64(2) {
		r, _ := NewReader(nil, 1, i*benchRows, benchRows, DefaultBatchRows)
		r.LimitLive(LiveBatches) // as the data.append scenario does
		res, err := Append(context.Background(), tbl, r)
		r.Release()
		if err != nil {
			b.Fatal(err)
		}
		tbl = res.Table
	}
	var bytes int64
	for b.Loop() {
		res, err := Scan(context.Background(), tbl, 0)
		if err != nil {
			b.Fatal(err)
		}
		bytes += res.Bytes
	}
	b.ReportMetric(2*float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(bytes)/(1<<20)/b.Elapsed().Seconds(), "MiB/s")
}

// BenchmarkChecksum is the verification cost per row.
func BenchmarkChecksum(b *testing.B) {
	rec := buildBatch(memory.DefaultAllocator, 1, 0, DefaultBatchRows)
	defer rec.Release()
	for b.Loop() {
		var c Checksum
		if err := c.AddBatch(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(DefaultBatchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
