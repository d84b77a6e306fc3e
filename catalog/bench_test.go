package catalog_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/results"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// benchFlush is the flush mode of BenchmarkWritePath's catalogs
// (go test -bench WritePath -args -catalog.flush=uring).
var benchFlush = flag.String("catalog.flush", "", "flush mode of BenchmarkWritePath's catalogs: syncfs, fsync or uring")

// benchSpin is CPU work each floor writer does before each write
// (go test -bench 'WritePath/create/floor' -args -catalog.spin=70us): a
// fixed amount of arithmetic, calibrated once to take that long on an idle
// core, standing in for the user-space CPU a catalog spends per write, to
// see how much throughput a given amount of it costs with no other change.
var benchSpin = flag.Duration("catalog.spin", 0, "CPU work (calibrated arithmetic) each floor writer does before each write")

var (
	spinOnce    sync.Once
	spinPerUsec float64 // spin iterations per microsecond on an idle core
	spinSink    atomic.Uint64
)

// spin does about d of CPU work on an idle core.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	spinOnce.Do(func() {
		const n = 1 << 22
		best := time.Duration(1<<63 - 1)
		for range 5 {
			t0 := time.Now()
			spinN(n)
			best = min(best, time.Since(t0))
		}
		spinPerUsec = float64(n) / float64(best.Microseconds()+1)
	})
	spinN(int(spinPerUsec * float64(d.Microseconds())))
}

func spinN(n int) {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	spinSink.Add(x)
}

// benchTables is the number of tables in the read benchmarks' catalog, so
// lookups run against a realistically sized mirror.
const benchTables = 1000

func benchCatalog(b *testing.B, d catalog.Durability) (*catalog.Catalog, table.Identifier) {
	b.Helper()
	c := openAt(b, b.TempDir(), d)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	var id table.Identifier
	for i := range benchTables {
		id = table.Identifier{"bench", fmt.Sprintf("t%04d", i)}
		if _, err := c.CreateTable(ctx, id, testSchema); err != nil {
			b.Fatal(err)
		}
	}
	return c, id
}

func BenchmarkLoadTable(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	if _, err := c.LoadTable(ctx, id); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.LoadTable(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadTableParallel shows that warm loads do not serialise.
func BenchmarkLoadTableParallel(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.LoadTable(ctx, id); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkResolveMetadata(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ResolveMetadata(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckTableExists(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		id    table.Identifier
		exist bool
	}{
		{"hit", id, true},
		{"miss", table.Identifier{"bench", "absent"}, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := c.CheckTableExists(ctx, tc.id); err != nil || ok != tc.exist {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

func BenchmarkCreateTable(b *testing.B) {
	for _, d := range catalog.Durabilities {
		b.Run(string(d), func(b *testing.B) {
			c := openAt(b, b.TempDir(), d)
			ctx := context.Background()
			if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := c.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", i)}, testSchema); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkLiveHeapPerTable reports what the catalog keeps on the heap
// per table created and not loaded since (live-B/table): the collector
// scans it on every cycle, and it is what a catalog of many tables holds
// in memory (go test ./catalog -run '^$' -bench LiveHeapPerTable -benchtime 20000x).
func BenchmarkLiveHeapPerTable(b *testing.B) {
	c := openAt(b, b.TempDir(), catalog.None)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	i := 0
	for b.Loop() {
		if _, err := c.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", i)}, testSchema); err != nil {
			b.Fatal(err)
		}
		i++
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(i), "live-B/table")
	runtime.KeepAlive(c)
}

func BenchmarkCommitTable(b *testing.B) {
	c, id := benchCatalog(b, catalog.Immediate)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, _, err := c.CommitTable(ctx, id, nil,
			[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"n": fmt.Sprint(i)})}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// The peer: iceberg-go's SQL catalog on SQLite, measured the same way, so
// the ratios can be read off one benchmark run.

func sqlCatalog(b *testing.B) icecatalog.Catalog {
	b.Helper()
	dir := b.TempDir()
	cat, err := icecatalog.Load(context.Background(), "bench", iceberg.Properties{
		"uri":             "file://" + filepath.Join(dir, "sql.db"),
		sqlcat.DriverKey:  sqliteshim.ShimName,
		sqlcat.DialectKey: string(sqlcat.SQLite),
		"type":            "sql",
		"warehouse":       "file://" + dir,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cat.(*sqlcat.Catalog).Close() })
	if err := cat.CreateNamespace(context.Background(), table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	return cat
}

func BenchmarkPeerSQLCreateTable(b *testing.B) {
	cat := sqlCatalog(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := cat.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", i)}, testSchema); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPeerSQLLoadTable(b *testing.B) {
	cat := sqlCatalog(b)
	ctx := context.Background()
	id := table.Identifier{"bench", "t"}
	if _, err := cat.CreateTable(ctx, id, testSchema); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cat.LoadTable(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWritePath measures concurrent durable (Immediate) writes through
// the group committer ("group"), through the group committer with the
// commit log ("log") and through the serial path it replaced ("serial"), as sub-benchmarks of one function so that -count interleaves
// them. create: every worker creates tables of its own; commit: every worker
// commits set-properties updates to a table of its own. Metrics: writes/s
// over the whole benchmark; for group, log and floor, writes per step and
// the share of the wall time each part of the steps took (%flush: the
// files; %bbolt-commit; %log-append: the record's write and fdatasync;
// %log-apply: under the writer lock; %checkpoint: the log's bbolt
// commits).
//
// "floor" is catalog.FileFloor doing a create's file work (a create's
// directories and metadata file, a record of a pointer's size) durably,
// batched and flushed as the catalog does: the floor the "log" path is
// measured against. "floor-meta" is the same floor building each
// metadata file's bytes as a create does (iceberg-go's NewMetadata, then
// its MarshalJSON) instead of reusing one file's: the floor's work plus
// the part of the catalog's CPU that is the metadata itself.
//
// "files" is the file work alone: the same directories and metadata files
// a create or commit writes, with the same bytes, but no fsync, no syncfs
// and no bbolt; what the catalog adds to it is durability and bookkeeping.
func BenchmarkWritePath(b *testing.B) {
	for _, op := range []string{"create", "commit"} {
		for _, path := range []string{"serial", "group", "log", "floor", "floor-meta", "files"} {
			for _, workers := range []int{1, 8, 32} {
				b.Run(fmt.Sprintf("%s/%s/t%d", op, path, workers), func(b *testing.B) {
					switch path {
					case "files":
						benchFiles(b, op, workers)
						return
					case "floor", "floor-meta":
						benchFloor(b, op, workers, path == "floor-meta")
						return
					}
					benchWrites(b, op, path != "serial", path == "log", workers)
				})
			}
		}
	}
}

// benchFiles writes what benchWrites' catalog writes, as plain files: per
// create a table and metadata directory and one metadata file, per commit
// one metadata file in the worker's table directory; every file holds the
// bytes of a real metadata file of testSchema. Nothing is synced.
func benchFiles(b *testing.B, op string, workers int) {
	raw, nsDir, _ := probeMetadata(b, b.TempDir())
	own := make([]string, workers)
	for w := range own {
		own[w] = filepath.Join(nsDir, fmt.Sprintf("own%d", w), "metadata")
		if err := os.MkdirAll(own[w], 0o755); err != nil {
			b.Fatal(err)
		}
	}
	runWriters(b, workers, func(w int, i int64) error {
		dir := own[w]
		if op == "create" {
			dir = filepath.Join(nsDir, fmt.Sprintf("t%d", i), "metadata")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d-x.metadata.json", i)), raw, 0o644)
	})
}

// probeMetadata creates one table of testSchema in a catalog at dir and
// returns the bytes of its metadata file, its namespace's directory and
// the metadata file's location:
// what a create writes, for the paths that write it without a catalog.
func probeMetadata(b *testing.B, dir string) (raw []byte, nsDir, location string) {
	c := openAt(b, dir, catalog.Immediate)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	probe, err := c.CreateTable(ctx, table.Identifier{"bench", "probe"}, testSchema)
	if err != nil {
		b.Fatal(err)
	}
	raw, err = os.ReadFile(strings.TrimPrefix(probe.MetadataLocation(), "file://"))
	if err != nil {
		b.Fatal(err)
	}
	return raw, filepath.Dir(strings.TrimPrefix(probe.Location(), "file://")), probe.MetadataLocation()
}

// benchFloor writes through a catalog.FileFloor what benchFiles writes as
// plain files, each with a record the size of a table pointer, and
// reports the Floor's writes per batch.
func benchFloor(b *testing.B, op string, workers int, buildMeta bool) {
	dir := b.TempDir()
	raw, _, location := probeMetadata(b, filepath.Join(dir, "probe"))
	f, err := catalog.OpenFileFloor(filepath.Join(dir, "floor"), catalog.Flush(*benchFlush))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	nsDir := filepath.Join(dir, "floor", "bench")
	record := append([]byte("bench\x00t000000\x00"), location...)
	batches0, writes0 := f.CommitBatches()
	flush0, records0 := f.StepTimes()
	b.ReportAllocs()
	spin(*benchSpin) // calibrate outside the timed span
	runWriters(b, workers, func(w int, i int64) error {
		spin(*benchSpin)
		tdir := filepath.Join(nsDir, fmt.Sprintf("own%d", w))
		if op == "create" {
			tdir = filepath.Join(nsDir, fmt.Sprintf("t%d", i))
		}
		data := raw
		if buildMeta {
			meta, err := table.NewMetadata(testSchema, nil, table.UnsortedSortOrder, "file://"+tdir, nil)
			if err != nil {
				return err
			}
			if data, err = meta.(json.Marshaler).MarshalJSON(); err != nil {
				return err
			}
		}
		return f.Write(filepath.Join(tdir, "metadata", fmt.Sprintf("%05d-x.metadata.json", i)), data, record)
	})
	if batches, writes := f.CommitBatches(); batches > batches0 {
		b.ReportMetric(float64(writes-writes0)/float64(batches-batches0), "writes/commit")
	}
	flush, records := f.StepTimes()
	b.ReportMetric(100*(flush-flush0).Seconds()/b.Elapsed().Seconds(), "%flush")
	b.ReportMetric(100*(records-records0).Seconds()/b.Elapsed().Seconds(), "%log-append")
	if *benchSpin > 0 {
		b.ReportMetric(float64(benchSpin.Microseconds()), "spin-µs/op")
	}
}

func benchWrites(b *testing.B, op string, group, commitLog bool, workers int) {
	c, err := catalog.Open(context.Background(), catalog.Options{Dir: b.TempDir(), Durability: catalog.Immediate, Flush: catalog.Flush(*benchFlush), CommitLog: commitLog})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	catalog.SetGroupCommit(c, group)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	own := make([]table.Identifier, workers)
	if op == "commit" {
		for w := range own {
			own[w] = table.Identifier{"bench", fmt.Sprintf("own%d", w)}
			if _, err := c.CreateTable(ctx, own[w], testSchema); err != nil {
				b.Fatal(err)
			}
		}
	}
	batches0, writes0 := catalog.WriteBatches(c)
	flush0, bbolt0 := c.CommitStepTimes()
	ckpt0, ckptTook0 := catalog.Checkpoints(c)
	append0, apply0 := c.LogStepTimes()
	b.ReportAllocs()
	runWriters(b, workers, func(w int, i int64) error {
		if op == "create" {
			_, err := c.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", i)}, testSchema)
			return err
		}
		_, _, err := c.CommitTable(ctx, own[w], nil,
			[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"n": fmt.Sprint(i)})})
		return err
	})
	if batches, writes := catalog.WriteBatches(c); group && batches > batches0 {
		b.ReportMetric(float64(writes-writes0)/float64(batches-batches0), "writes/commit")
		// Steps run one at a time: their parts' shares of the wall time.
		flush, bbolt := c.CommitStepTimes()
		b.ReportMetric(100*(flush-flush0).Seconds()/b.Elapsed().Seconds(), "%flush")
		b.ReportMetric(100*(bbolt-bbolt0).Seconds()/b.Elapsed().Seconds(), "%bbolt-commit")
	}
	if commitLog {
		appendSync, apply := c.LogStepTimes()
		b.ReportMetric(100*(appendSync-append0).Seconds()/b.Elapsed().Seconds(), "%log-append")
		b.ReportMetric(100*(apply-apply0).Seconds()/b.Elapsed().Seconds(), "%log-apply")
		n, took := catalog.Checkpoints(c)
		b.ReportMetric(float64(n-ckpt0), "checkpoints")
		b.ReportMetric(100*(took-ckptTook0).Seconds()/b.Elapsed().Seconds(), "%checkpoint")
	}
}

// runWriters runs b.N writes on workers goroutines (write(w, i) is worker
// w's i-th write of the benchmark, i counting across workers), timed from
// the first to the last, and reports writes/s and the process's CPU time
// (user and system, from getrusage) per write over the same span. A
// write's error fails the benchmark and stops its worker.
func runWriters(b *testing.B, workers int, write func(w int, i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	user0, sys0, ok := results.ProcessCPUTimes()
	if !ok {
		b.Fatal("getrusage failed")
	}
	host0, hostOK := readHostCPU()
	b.ResetTimer()
	for w := range workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if err := write(w, i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	user1, sys1, ok := results.ProcessCPUTimes()
	if !ok {
		b.Fatal("getrusage failed")
	}
	host1, hostOK1 := readHostCPU()
	user, sys := user1-user0, sys1-sys0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	b.ReportMetric(float64((user+sys).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(user.Microseconds())/float64(b.N), "user-µs/op")
	b.ReportMetric(float64(sys.Microseconds())/float64(b.N), "sys-µs/op")
	// The whole machine's CPU over the timed span (every process and the
	// kernel's own threads, such as the journal's and the block device's):
	// busy is what is neither idle nor waiting for I/O. Absent where
	// /proc/stat cannot be read.
	if hostOK && hostOK1 {
		if total := host1.total - host0.total; total > 0 {
			b.ReportMetric(100*float64(host1.busy-host0.busy)/float64(total), "host-busy-%")
			b.ReportMetric(100*float64(host1.iowait-host0.iowait)/float64(total), "host-iowait-%")
		}
	}
}

// hostCPU is the machine's CPU time in clock ticks, summed over its CPUs,
// from the first line of /proc/stat.
type hostCPU struct{ total, busy, iowait uint64 }

// readHostCPU reads /proc/stat's "cpu" line: user nice system idle iowait
// irq softirq steal …; busy is everything but idle and iowait (guest time
// is already counted in user). ok is false where there is no such file.
func readHostCPU() (hostCPU, bool) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return hostCPU{}, false
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return hostCPU{}, false
	}
	var h hostCPU
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return hostCPU{}, false
		}
		h.total += n
		switch i {
		case 3: // idle
		case 4:
			h.iowait += n
		default:
			h.busy += n
		}
	}
	return h, true
}
