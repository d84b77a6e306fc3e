package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

// committedLocations returns the local paths every table pointer in bbolt
// names.
func committedLocations(t *testing.T, c *Catalog) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTables).ForEach(func(k, v []byte) error {
			p, ok := localPath(string(v))
			if !ok {
				return fmt.Errorf("pointer %s is not local", v)
			}
			out[p] = string(k)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSyncStepPrecedesPointers has concurrent writers create tables and
// commit to them while a hook watches every sync step: when a step's files
// are durable no pointer may name them yet, and every pointer bbolt holds
// in the end must name a file some step made durable. A batch that
// acknowledged (or committed) a writer before its file's sync step would
// fail one of the two. It runs once per flush mode.
func TestSyncStepPrecedesPointers(t *testing.T) {
	for _, flush := range Flushes {
		t.Run(string(flush), func(t *testing.T) { testSyncStepPrecedesPointers(t, flush) })
	}
}

func testSyncStepPrecedesPointers(t *testing.T, flush Flush) {
	c, err := Open(context.Background(), Options{Dir: t.TempDir(), Durability: Immediate, Flush: flush})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if c.FlushMode() != flush {
		t.Fatalf("flush mode %s, want %s", c.FlushMode(), flush)
	}
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		synced = map[string]bool{}
		files  int
	)
	c.afterSync = func(paths []string) error {
		committed := committedLocations(t, c)
		mu.Lock()
		defer mu.Unlock()
		for _, p := range paths {
			if k, ok := committed[p]; ok {
				t.Errorf("pointer %s names %s before its sync step ended", k, p)
			}
			synced[p] = true
		}
		files += len(paths)
		return nil
	}
	const writers, each = 12, 3
	writeConcurrently(t, writers, each, func(id table.Identifier) error {
		if _, err := c.CreateTable(ctx, id, gcSchema); err != nil {
			return err
		}
		_, _, err := c.CommitTable(ctx, id, nil,
			[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})})
		return err
	})
	committed := committedLocations(t, c)
	if len(committed) != writers*each {
		t.Fatalf("%d pointers, want %d", len(committed), writers*each)
	}
	mu.Lock()
	defer mu.Unlock()
	for p, k := range committed {
		if !synced[p] {
			t.Errorf("pointer %s names %s, which no sync step made durable", k, p)
		}
	}
	if want := 2 * writers * each; files != want {
		t.Errorf("sync steps covered %d files, want %d (one per write)", files, want)
	}
	t.Logf("%d files in %d sync steps", files, c.syncSteps.Load())
}

// TestFailedSyncStepCommitsNothing: when a batch's sync step fails, every
// writer of the batch gets the error and none of their pointers is
// committed or published; the next step, succeeding, commits again.
func TestFailedSyncStepCommitsNothing(t *testing.T) {
	c := openInternal(t, Immediate)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	errDisk := errors.New("disk on fire")
	c.afterSync = func(paths []string) error {
		for _, p := range paths {
			if strings.Contains(p, "/doomed") {
				return errDisk
			}
		}
		return nil
	}
	const writers = 8
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			_, errs[w] = c.CreateTable(ctx, table.Identifier{"ns", fmt.Sprintf("doomed%d", w)}, gcSchema)
		})
	}
	wg.Wait()
	for w, err := range errs {
		if !errors.Is(err, errDisk) {
			t.Errorf("writer %d: err = %v, want the sync step's error", w, err)
		}
		if ok, _ := c.CheckTableExists(ctx, table.Identifier{"ns", fmt.Sprintf("doomed%d", w)}); ok {
			t.Errorf("writer %d's table is in the mirror after its sync step failed", w)
		}
	}
	if n := len(committedLocations(t, c)); n != 0 {
		t.Errorf("%d pointers committed by failed sync steps", n)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"ns", "fine"}, gcSchema); err != nil {
		t.Errorf("create after failed steps: %v", err)
	}
}
