package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

func openLog(t *testing.T, dir string) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), Options{Dir: dir, Durability: Immediate, CommitLog: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// withLogSizes shrinks the log's segments and checkpoint threshold for one
// test, so that a few hundred writes rotate segments and checkpoint.
// The checkpointer's timer is set to an hour: checkpoints come from size
// alone, so what a test replays does not depend on timing.
func withLogSizes(t *testing.T, segment int64, ckptBytes uint64) {
	oldSeg, oldCk, oldEvery := walSegmentSize, checkpointBytes, checkpointEvery
	walSegmentSize, checkpointBytes, checkpointEvery = segment, ckptBytes, time.Hour
	t.Cleanup(func() { walSegmentSize, checkpointBytes, checkpointEvery = oldSeg, oldCk, oldEvery })
}

// powerLoss stops c as a power loss would, as far as the disk is
// concerned: the log keeps what its last successful fdatasync made
// durable plus the first torn bytes of the record written after it (the
// rest of the segment reads as zeros, what was there before the
// unflushed write), and bbolt keeps its last checkpoint (between
// checkpoints the catalog writes nothing to the bbolt file, so rolling
// back the open transaction drops exactly what the disk never had).
// Metadata files were flushed before their group's record was written.
func powerLoss(t *testing.T, c *Catalog, torn int) {
	t.Helper()
	c.ckpt.close()
	c.stepMu.Lock()
	defer c.stepMu.Unlock()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.closed.Store(true)
	// The spare segment's preparation ends as the process would have
	// left it: its file stays, for the reopen to deal with.
	_, _ = c.wal.waitSpare()
	seg := c.wal.seg
	path := seg.f.Name()
	written := seg.size - seg.synced
	_ = seg.close()
	if c.ltx != nil {
		_ = c.ltx.Rollback()
	}
	if err := c.db.Close(); err != nil {
		t.Fatal(err)
	}
	_ = c.flusher.close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unflushed := make([]byte, written)
	if _, err := f.ReadAt(unflushed, seg.synced); err != nil {
		t.Fatal(err)
	}
	lost := make([]byte, written)
	copy(lost, unflushed[:min(torn, len(unflushed))])
	if _, err := f.WriteAt(lost, seg.synced); err != nil {
		t.Fatal(err)
	}
	t.Logf("power loss: %d bytes written after the last flush of %s, %d of them kept", written, filepath.Base(path), min(torn, int(written)))
}

// TestCommitLogPowerLoss runs concurrent creates and commits with the
// commit log (small segments and checkpoints, so segments rotate and are
// removed), fails the log's flush at an arbitrary group as a power cut
// would, drops everything written after the last successful flush except
// a torn piece of the record being flushed, and reopens: every
// acknowledged create and commit is there, the torn record is not, every
// pointer names a metadata file that reads and parses, and the replay is
// reported.
func TestCommitLogPowerLoss(t *testing.T) {
	for _, torn := range []int{0, 5, walHeaderSize, walHeaderSize + 40} {
		for _, reopenWithLog := range []bool{true, false} {
			t.Run(fmt.Sprintf("torn%d/log=%v", torn, reopenWithLog), func(t *testing.T) {
				testCommitLogPowerLoss(t, torn, reopenWithLog)
			})
		}
	}
}

func testCommitLogPowerLoss(t *testing.T, torn int, reopenWithLog bool) {
	withLogSizes(t, 16<<10, 8<<10)
	ctx := context.Background()
	dir := t.TempDir()
	c, err := Open(ctx, Options{Dir: dir, Durability: Immediate, CommitLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ns := table.Identifier{"pl"}
	if err := c.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}

	const workers, cutAfter = 8, 300
	var (
		mu      sync.Mutex
		created = map[string]bool{}
		seq     = map[string]int{}
		acks    int
		cut     sync.Once
	)
	ack := func(name string, n int) {
		mu.Lock()
		defer mu.Unlock()
		if n == 0 {
			created[name] = true
		} else {
			seq[name] = max(seq[name], n)
		}
		acks++
		if acks == cutAfter-60 {
			// No checkpoint from here on: the last 60 or more
			// acknowledged writes live in the log alone.
			c.wmu.Lock()
			c.ckptBytes = ^uint64(0)
			c.wmu.Unlock()
		}
		if acks == cutAfter {
			cut.Do(func() {
				c.stepMu.Lock() // no commit step is between append and sync
				c.wal.beforeSync = func() error { return errors.New("power cut") }
				c.stepMu.Unlock()
			})
		}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := 0; ; r++ {
				id := table.Identifier{"pl", fmt.Sprintf("w%d_r%d", w, r)}
				name := id[1]
				if _, err := c.CreateTable(ctx, id, gcSchema); err != nil {
					return
				}
				ack(name, 0)
				for n := 1; n <= 2; n++ {
					if _, _, err := c.CommitTable(ctx, id, nil, []table.Update{
						table.NewSetPropertiesUpdate(iceberg.Properties{"seq": strconv.Itoa(n)}),
					}); err != nil {
						return
					}
					ack(name, n)
				}
			}
		})
	}
	wg.Wait()
	checkpoints := c.checkpoints.Load()
	started := c.wal.started.Load()
	c.wal.mu.Lock()
	onDisk := len(c.wal.segs)
	c.wal.mu.Unlock()
	powerLoss(t, c, torn)
	if checkpoints == 0 || started < 3 {
		t.Fatalf("%d checkpoints, %d segments: the test did not exercise replay after a checkpoint and rotation", checkpoints, started)
	}
	if prepared := c.wal.prepared.Load(); prepared == 0 {
		t.Fatalf("%d segments started, none from a spare prepared off the commit path", started)
	}
	if onDisk >= int(started) {
		t.Errorf("%d segments started, %d on disk: checkpoints removed none", started, onDisk)
	}

	c2, err := Open(ctx, Options{Dir: dir, Durability: Immediate, CommitLog: reopenWithLog})
	if err != nil {
		t.Fatalf("reopen after power loss: %v", err)
	}
	defer c2.Close()
	rc := c2.Recovery()
	t.Logf("%d segments started, %d on disk at the power loss", started, onDisk)
	t.Logf("%d acknowledged writes, %d checkpoints; recovery: %d segments, %d records (%d changes) replayed in %v",
		acks, checkpoints, rc.Segments, rc.Records, rc.Changes, rc.Duration)
	if rc.Records == 0 {
		t.Error("recovery replayed nothing: the groups since the last checkpoint were not in the log")
	}
	lost, unreadable := 0, 0
	for name := range created {
		tbl, err := c2.LoadTable(ctx, table.Identifier{"pl", name})
		if err != nil {
			if !errors.Is(err, icecatalog.ErrNoSuchTable) {
				unreadable++
			}
			lost++
			t.Errorf("acknowledged table %s: %v", name, err)
			continue
		}
		if got, _ := strconv.Atoi(tbl.Properties()["seq"]); got < seq[name] {
			lost++
			t.Errorf("%s: seq %d, but %d was acknowledged", name, got, seq[name])
		}
	}
	// Every pointer, acknowledged or not, names a metadata file that reads.
	for id, err := range c2.ListTables(ctx, ns) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c2.LoadTable(ctx, id); err != nil {
			unreadable++
			t.Errorf("pointer of %v: %v", id, err)
		}
	}
	t.Logf("lost %d acknowledged writes, %d unreadable metadata files", lost, unreadable)
	// The catalog takes writes after recovery.
	if _, err := c2.CreateTable(ctx, table.Identifier{"pl", "after"}, gcSchema); err != nil {
		t.Fatalf("create after recovery: %v", err)
	}
}

// BenchmarkCommitLogRecover times recoverLog over a log of n records, each
// one create's change (a table pointer of about 150 bytes), replayed onto
// a bbolt file that holds none of them: reading and checking the segment,
// one bbolt transaction applying every change (synced), and removing the
// segment. ns/op is the whole recovery of n records.
func BenchmarkCommitLogRecover(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			var seg, payload []byte
			for i := range n {
				key := keyOf(table.Identifier{"bench", fmt.Sprintf("t%07d", i)})
				loc := fmt.Sprintf("file:///tmp/warehouse/bench/t%07d/metadata/00000-0b8a4d1e-3f5c-4a57-9a0b-6c1e2d3f4a5b.metadata.json", i)
				payload = appendWALChanges(payload[:0], []walChange{{bucket: bucketTables, key: key, val: []byte(loc)}})
				var err error
				if seg, err = appendWALRecord(seg, walRecord{seq: uint64(i + 1), payload: payload}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				c, err := Open(context.Background(), Options{Dir: dir, Durability: Immediate})
				if err != nil {
					b.Fatal(err)
				}
				walDir := filepath.Join(dir, walDirName)
				if err := os.MkdirAll(walDir, 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(walDir, segmentName(1)), seg, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rc, err := recoverLog(c.db, walDir)
				b.StopTimer()
				if err != nil || rc.Records != n {
					b.Fatalf("recovered %d of %d records: %v", rc.Records, n, err)
				}
				if err := c.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n/10_000), "ns/10k-records")
		})
	}
}

// TestCommitLogRefusesGap removes the oldest segment of a log whose
// records no checkpoint holds: Open must refuse it with ErrCorrupt,
// naming the missing records, and leave the remaining segments in place.
func TestCommitLogRefusesGap(t *testing.T) {
	withLogSizes(t, 4<<10, ^uint64(0))
	ctx := context.Background()
	dir := t.TempDir()
	c, err := Open(ctx, Options{Dir: dir, Durability: Immediate, CommitLog: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, table.Identifier{"gap"}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		if _, err := c.CreateTable(ctx, table.Identifier{"gap", fmt.Sprintf("t%d", i)}, gcSchema); err != nil {
			t.Fatal(err)
		}
	}
	powerLoss(t, c, 0)
	walDir := filepath.Join(dir, walDirName)
	segs, err := listSegments(walDir)
	if err != nil || len(segs) < 2 {
		t.Fatalf("%d segments (%v): the test needs two or more", len(segs), err)
	}
	if err := os.Remove(filepath.Join(walDir, segmentName(segs[0]))); err != nil {
		t.Fatal(err)
	}
	if c2, err := Open(ctx, Options{Dir: dir}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			c2.Close()
		}
		t.Fatalf("Open over a log with a gap: %v, want ErrCorrupt", err)
	} else {
		t.Log(err)
	}
	left, err := listSegments(walDir)
	if err != nil || len(left) != len(segs)-1 {
		t.Fatalf("after the refused open: %d segments (%v), want %d", len(left), err, len(segs)-1)
	}
}

// TestCommitLogCreateSeesNamespaceProperties: with the commit log, a
// create reads its namespace's properties without the writer lock while
// no namespace changed since the last checkpoint; every create must
// still place its table by the namespace's properties as last
// acknowledged, before and after a checkpoint, and a namespace created
// since the checkpoint must be found.
func TestCommitLogCreateSeesNamespaceProperties(t *testing.T) {
	withLogSizes(t, 1<<20, 1<<30) // no checkpoint but the test's own
	dir := t.TempDir()
	c := openLog(t, dir)
	ctx := context.Background()
	ns := table.Identifier{"ns"}
	locOf := func(name string) string { return "file://" + filepath.Join(dir, "warehouse", name) }
	create := func(name, wantBase string) {
		t.Helper()
		tbl, err := c.CreateTable(ctx, table.Identifier{"ns", name}, iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int64}))
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		if want := wantBase + "/" + name; tbl.Location() != want {
			t.Errorf("create %s: location %s, want %s", name, tbl.Location(), want)
		}
	}
	setLoc := func(name string) {
		t.Helper()
		if _, err := c.UpdateNamespaceProperties(ctx, ns, nil, iceberg.Properties{"location": locOf(name)}); err != nil {
			t.Fatal(err)
		}
	}
	checkpoint := func() {
		t.Helper()
		if err := c.checkpoint(); err != nil {
			t.Fatal(err)
		}
		if c.nsLogged.Load() {
			t.Fatal("a checkpoint left the namespaces marked as changed")
		}
	}

	if err := c.CreateNamespace(ctx, ns, iceberg.Properties{"location": locOf("one")}); err != nil {
		t.Fatal(err)
	}
	if !c.nsLogged.Load() {
		t.Fatal("a logged namespace create did not mark the namespaces as changed")
	}
	create("a", locOf("one")) // the namespace exists only in the log
	setLoc("two")
	create("b", locOf("two"))
	checkpoint()
	create("c", locOf("two")) // read from the bbolt file, without the lock
	setLoc("three")
	create("d", locOf("three"))
	checkpoint()
	setLoc("four")
	create("e", locOf("four"))
	if err := c.DropNamespace(ctx, table.Identifier{"gone"}); err == nil {
		t.Fatal("dropping a missing namespace succeeded")
	}
	checkpoint()
	if _, err := c.CreateTable(ctx, table.Identifier{"gone", "x"}, iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int64})); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Fatalf("create in a missing namespace after a checkpoint: %v, want ErrNoSuchNamespace", err)
	}
}

// TestCommitLogFailedFlushLeavesReadsAlone: a group whose log flush fails
// is never acknowledged and never seen. Its writer gets
// ErrCommitStateUnknown, reads of the open transaction show only the
// groups acknowledged before it, every later write fails, and after a
// reopen the table of the failed create is either absent or names a
// metadata file that parses (the record reached the file before the
// failed flush, so a replay may find it).
func TestCommitLogFailedFlushLeavesReadsAlone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := openLog(t, dir)
	ns := table.Identifier{"ff"}
	if err := c.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"ff", "kept"}, gcSchema); err != nil {
		t.Fatal(err)
	}
	c.stepMu.Lock() // no commit step is between append and sync
	c.wal.beforeSync = func() error { return errors.New("flush refused") }
	c.stepMu.Unlock()

	_, err := c.CreateTable(ctx, table.Identifier{"ff", "failed"}, gcSchema)
	if !errors.Is(err, ErrCommitStateUnknown) {
		t.Fatalf("create whose log flush failed: %v, want ErrCommitStateUnknown", err)
	}
	var names []string
	for id, err := range c.ListTables(ctx, ns) {
		if err != nil {
			t.Fatalf("list after the failed flush: %v", err)
		}
		names = append(names, id[len(id)-1])
	}
	if fmt.Sprint(names) != "[kept]" {
		t.Fatalf("tables read after the failed flush: %v, want [kept]", names)
	}
	if _, err := c.LoadTable(ctx, table.Identifier{"ff", "failed"}); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Fatalf("load of the failed create: %v, want ErrNoSuchTable", err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"ff", "later"}, gcSchema); err == nil || !errors.Is(err, c.walErr) {
		t.Fatalf("create after the failed flush: %v, want the log's failure", err)
	}
	if err := c.Close(); err != nil {
		t.Logf("close after the failure: %v", err)
	}

	c2 := openLog(t, dir)
	if _, err := c2.LoadTable(ctx, table.Identifier{"ff", "kept"}); err != nil {
		t.Fatalf("acknowledged create after reopen: %v", err)
	}
	switch _, err := c2.LoadTable(ctx, table.Identifier{"ff", "failed"}); {
	case err == nil:
		t.Log("the failed group's record was replayed; its metadata file parses")
	case errors.Is(err, icecatalog.ErrNoSuchTable):
		t.Log("the failed group's record was not replayed")
	default:
		t.Fatalf("failed create after reopen: %v", err)
	}
	if _, err := c2.LoadTable(ctx, table.Identifier{"ff", "later"}); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Fatalf("create refused after the failure, after reopen: %v, want ErrNoSuchTable", err)
	}
}
