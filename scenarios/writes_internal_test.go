package scenarios

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestBackoffIsBoundedJitterThatGrows checks the contended retry wait: never
// past its ceiling (which doubles per lost race up to backoffMax), random
// below it, and cut short by a cancelled context.
func TestBackoffIsBoundedJitterThatGrows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	prev := time.Duration(0)
	for _, attempt := range []int64{1, 2, 3, 9, 10, 20} {
		ceil := backoffCeiling(attempt)
		if want := min(backoffBase<<min(attempt-1, 20), backoffMax); ceil != want {
			t.Errorf("attempt %d: ceiling %s, want %s", attempt, ceil, want)
		}
		if ceil < prev {
			t.Errorf("attempt %d: ceiling %s shrank from %s", attempt, ceil, prev)
		}
		prev = ceil
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoffDelay(attempt, rng.Int64N)
			if d < 0 || d >= ceil {
				t.Fatalf("attempt %d: delay %s outside [0, %s)", attempt, d, ceil)
			}
			seen[d] = true
		}
		if len(seen) < 100 {
			t.Errorf("attempt %d: %d distinct delays in 200 draws: no jitter", attempt, len(seen))
		}
	}
	// The edges of the draw: the smallest and the largest value intN may give.
	if d := backoffDelay(20, func(int64) int64 { return 0 }); d != 0 {
		t.Errorf("smallest draw: %s, want 0", d)
	}
	if d := backoffDelay(20, func(n int64) int64 { return n - 1 }); d != backoffMax-1 {
		t.Errorf("largest draw: %s, want %s", d, backoffMax-1)
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := backoff(cctx, 20); err != context.Canceled {
		t.Errorf("cancelled backoff returned %v, want context.Canceled", err)
	}
}

// TestBranchUpdateCarriesNoRetention checks the contended scenario's ref
// update as a REST client sends it: no retention fields, which Java
// catalogs reject when they are not positive.
func TestBranchUpdateCarriesNoRetention(t *testing.T) {
	b, err := json.Marshal(branchUpdate(contendedBranch, 42))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"min-snapshots-to-keep", "max-snapshot-age-ms", "max-ref-age-ms"} {
		if strings.Contains(string(b), f) {
			t.Errorf("set-snapshot-ref update carries %s: %s", f, b)
		}
	}
	if !strings.Contains(string(b), `"snapshot-id":42`) || !strings.Contains(string(b), `"ref-name":"`+contendedBranch+`"`) {
		t.Errorf("update lacks the ref or the snapshot: %s", b)
	}
}
