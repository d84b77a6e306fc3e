package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

func openInternal(t *testing.T, d Durability) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), Options{Dir: t.TempDir(), Durability: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var gcSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})

// TestCommitBatchIsolatesFailures commits one batch in which one op is
// rejected by its check and another fails in apply after writing part of
// its change: each gets its own error, the others commit and publish in
// order, and nothing of the failed apply remains.
func TestCommitBatchIsolatesFailures(t *testing.T) {
	c := openInternal(t, Immediate)
	bucket := []byte("gc-test")
	if err := c.db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket(bucket)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var published []string
	put := func(k string) *writeOp {
		return &writeOp{
			apply:   func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put([]byte(k), []byte("v")) },
			publish: func() { published = append(published, k) },
		}
	}
	errRejected, errHalf := errors.New("rejected"), errors.New("half done")
	rejected := &writeOp{
		check:   func(*bolt.Tx) error { return errRejected },
		apply:   func(*bolt.Tx) error { t.Error("apply of a rejected op ran"); return nil },
		publish: func() { t.Error("rejected op published") },
	}
	half := &writeOp{
		apply: func(tx *bolt.Tx) error {
			if err := tx.Bucket(bucket).Put([]byte("half"), []byte("v")); err != nil {
				return err
			}
			return errHalf
		},
		publish: func() { t.Error("failed op published") },
	}
	// sees reports whether "half" is visible to a later op of the batch; it
	// must not be once the batch is rerun without half.
	var sawHalf bool
	sees := &writeOp{check: func(tx *bolt.Tx) error {
		sawHalf = tx.Bucket(bucket).Get([]byte("half")) != nil
		return nil
	}, apply: func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put([]byte("d"), []byte("v")) },
		publish: func() { published = append(published, "d") }}

	batch := []*writeOp{put("a"), rejected, half, put("c"), sees}
	c.commitBatch(batch)

	for i, want := range []error{nil, errRejected, errHalf, nil, nil} {
		if got := batch[i].err; !errors.Is(got, want) || (want == nil && got != nil) {
			t.Errorf("op %d: err = %v, want %v", i, got, want)
		}
	}
	if sawHalf {
		t.Error("a later op saw the failed op's partial write")
	}
	if fmt.Sprint(published) != "[a c d]" {
		t.Errorf("published %v, want [a c d]", published)
	}
	if err := c.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		for k, want := range map[string]bool{"a": true, "c": true, "d": true, "half": false} {
			if got := b.Get([]byte(k)) != nil; got != want {
				t.Errorf("key %s stored = %v, want %v", k, got, want)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommitSharesBatches has many writers create tables at once in
// Immediate mode: all must succeed, bbolt and the mirror must agree, and
// the writers must have shared commits (fewer batches than writes).
func TestGroupCommitSharesBatches(t *testing.T) {
	c := openInternal(t, Immediate)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	b0, o0 := c.gc.batches.Load(), c.gc.ops.Load()
	const writers, each = 16, 4
	writeConcurrently(t, writers, each, func(id table.Identifier) error {
		_, err := c.CreateTable(ctx, id, gcSchema)
		return err
	})
	batches, ops := c.gc.batches.Load()-b0, c.gc.ops.Load()-o0
	if ops != writers*each {
		t.Fatalf("%d ops committed, want %d", ops, writers*each)
	}
	if batches >= ops {
		t.Errorf("%d writes took %d batches: no commit was shared", ops, batches)
	}
	pointers := map[string]string{}
	if err := c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTables).ForEach(func(k, v []byte) error {
			pointers[string(k)] = string(v)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if got := c.tables.pointers(); len(pointers) != writers*each || fmt.Sprint(got) != fmt.Sprint(pointers) {
		t.Errorf("mirror (%d pointers) differs from bbolt (%d pointers)", len(got), len(pointers))
	}
	t.Logf("%d creates in %d batches", ops, batches)
}

// writeConcurrently runs writers goroutines at once, each calling write
// for each of its own tables ns.w<writer>_<i> in turn; a write's error
// fails the test and stops its writer.
func writeConcurrently(t *testing.T, writers, each int, write func(id table.Identifier) error) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := write(table.Identifier{"ns", fmt.Sprintf("w%d_%d", w, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestConcurrentCommitsOnOneTableTakeTurns has many writers commit to one
// table at once, each guarded only by the table UUID. Commits to one table
// take turns, each applied to its predecessor's metadata, so every one must
// win and leave its own metadata version; none may be lost.
func TestConcurrentCommitsOnOneTableTakeTurns(t *testing.T) {
	c := openInternal(t, Immediate)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.CreateTable(ctx, table.Identifier{"ns", "hot"}, gcSchema)
	if err != nil {
		t.Fatal(err)
	}
	id, base := tbl.Identifier(), tbl.Metadata()
	const writers = 12
	var wg sync.WaitGroup
	results := make([]error, writers)
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			_, _, results[w] = c.CommitTable(ctx, id,
				[]table.Requirement{table.AssertTableUUID(base.TableUUID())},
				[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{fmt.Sprintf("w%d", w): "done"})})
		})
	}
	close(start)
	wg.Wait()
	for w, err := range results {
		if err != nil {
			t.Errorf("writer %d: %v", w, err)
		}
	}
	meta, err := c.ResolveMetadata(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	versions := 0
	for range meta.PreviousFiles() {
		versions++
	}
	if versions != writers {
		t.Errorf("%d metadata versions after the create, want %d", versions, writers)
	}
	for w := range writers {
		if meta.Properties()[fmt.Sprintf("w%d", w)] != "done" {
			t.Errorf("writer %d's update is lost", w)
		}
	}
}

// TestCommitLockHonoursContext: a commit waiting for its table's turn gives
// up when its context ends.
func TestCommitLockHonoursContext(t *testing.T) {
	l := newCommitLocks()
	unlock, err := l.lock(context.Background(), []byte("t"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := l.lock(ctx, []byte("t")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second lock = %v, want context.DeadlineExceeded", err)
	}
	unlock()
	again, err := l.lock(context.Background(), []byte("t"))
	if err != nil {
		t.Fatal(err)
	}
	again()
}

// TestDirTrackerSyncsPendingParents: a writer whose path runs into a
// directory another writer created and has not made durable yet syncs that
// directory's parent itself (no waiting across batches), and a directory
// stops being pending only when its creator's sync succeeded.
func TestDirTrackerSyncsPendingParents(t *testing.T) {
	root := t.TempDir()
	ns := filepath.Join(root, "ns")
	var tr dirTracker
	a := tr.plan(filepath.Join(ns, "a", "metadata"))
	if got, want := len(a.created), 3; got != want {
		t.Fatalf("first writer registered %d new directories, want %d (%v)", got, want, a.created)
	}
	if got := a.sync[len(a.sync)-1]; got != root {
		t.Errorf("first writer's last sync is %s, want the existing root %s", got, root)
	}
	if !a.devOK && runtime.GOOS == "linux" {
		t.Error("first writer knows no device for the existing root")
	}
	if err := os.MkdirAll(filepath.Join(ns, "a", "metadata"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := tr.plan(filepath.Join(ns, "b", "metadata"))
	if len(b.created) != 2 || b.sync[len(b.sync)-1] != root {
		t.Fatalf("second writer: created %v, sync %v; want ns/b/metadata and ns/b created and root synced (ns is pending)", b.created, b.sync)
	}
	a.release(false)
	c := tr.plan(filepath.Join(ns, "a", "metadata"))
	if c.sync[len(c.sync)-1] != root {
		t.Errorf("after a failed sync ns/a is no longer treated as new: sync %v", c.sync)
	}
	c.release(true)
	b.release(true)
	if _, ok := tr.pending[ns]; !ok {
		t.Error("ns stopped pending although its creator's sync failed")
	}
	// A creator whose sync succeeded releases its directories: a later
	// writer syncs only its own directory.
	var fresh dirTracker
	e := fresh.plan(filepath.Join(root, "other", "metadata"))
	if err := os.MkdirAll(filepath.Join(root, "other", "metadata"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.release(true)
	d := fresh.plan(filepath.Join(root, "other", "metadata"))
	if len(d.created) != 0 || len(d.sync) != 1 || len(fresh.pending) != 0 {
		t.Errorf("durable path: created %v, sync %v, pending %d; want nothing created or pending and only the file's directory synced", d.created, d.sync, len(fresh.pending))
	}
	d.release(true)
}
