package scenarios

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
)

// TestContendedCommitsLoseNoFlip has workers flip the contended branch
// through the embedded catalog. Every success flips the branch once, so the
// final head must match the parity of the success count (two wins from one
// base would break it), every op must succeed after its retries, and the
// counters must add up.
func TestContendedCommitsLoseNoFlip(t *testing.T) {
	ctx := context.Background()
	cat, err := catalog.Open(ctx, catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	id := table.Identifier{"ns", "hot"}
	snaps, err := setupContended(ctx, cat, id, func(...table.Identifier) {})
	if err != nil {
		t.Fatal(err)
	}
	var counts contendedCounts
	op := contendedOp(cat, id, snaps, &counts)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := op(ctx, w, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := counts.successes.Load(); got != workers*each {
		t.Fatalf("successes = %d, want %d", got, workers*each)
	}
	if r, m := counts.retried.Load(), counts.maxTries.Load(); r > counts.conflicts.Load() || (r > 0) != (m > 1) {
		t.Errorf("retried %d, conflicts %d, max attempts %d: inconsistent", r, counts.conflicts.Load(), m)
	}
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	head, ok := branchHead(tbl.Metadata(), contendedBranch)
	if want := snaps[(workers*each)%2]; !ok || head != want {
		t.Errorf("branch head = %d (present %v), want %d after %d flips", head, ok, want, workers*each)
	}
	t.Logf("%d commits, %d conflicts, %d retried, max %d attempts",
		counts.successes.Load(), counts.conflicts.Load(), counts.retried.Load(), counts.maxTries.Load())
}
