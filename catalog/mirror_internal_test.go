package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

var internalSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})

// boltPointers reads the tables bucket: key → metadata location.
func boltPointers(t *testing.T, c *Catalog) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTables).ForEach(func(k, v []byte) error {
			out[string(k)] = string(v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertMirrorMatchesBolt(t *testing.T, c *Catalog, when string) {
	t.Helper()
	want := boltPointers(t, c)
	got := c.tables.pointers()
	if !maps.Equal(got, want) {
		t.Fatalf("%s: mirror (%d entries) != bbolt (%d entries)\nmirror: %v\nbbolt:  %v", when, len(got), len(want), got, want)
	}
	// Every cached metadata must be the one its pointer names.
	for i := range c.tables.shards {
		if s := c.tables.shards[i].Load(); s != nil {
			for k, e := range *s {
				if l := e.loaded.Load(); l != nil && (l.location != e.location || l.table().MetadataLocation() != e.location) {
					t.Fatalf("%s: entry %q points to %s but caches %s", when, k, e.location, l.location)
				}
			}
		}
	}
}

// TestMirrorInStepWithBolt runs creates, commits, renames and drops from two
// writers while four readers hammer the lock-free read paths. After every
// single write of a sequential phase, and at the end of the concurrent phase,
// the mirror must equal bbolt's table bucket exactly.
func TestMirrorInStepWithBolt(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, Options{Dir: t.TempDir(), Durability: None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, ns := range []string{"a", "b"} {
		if err := c.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	stable := table.Identifier{"a", "stable"}
	if _, err := c.CreateTable(ctx, stable, internalSchema); err != nil {
		t.Fatal(err)
	}

	// op applies one random write to one of n names; errors that only say
	// the random choice was impossible (exists / missing / lost race) are
	// expected.
	op := func(rng *rand.Rand, n int) error {
		name := func() table.Identifier {
			return table.Identifier{[]string{"a", "b"}[rng.IntN(2)], fmt.Sprintf("t%d", rng.IntN(n))}
		}
		var err error
		switch rng.IntN(4) {
		case 0:
			_, err = c.CreateTable(ctx, name(), internalSchema)
		case 1:
			err = c.DropTable(ctx, name())
		case 2:
			_, err = c.RenameTable(ctx, name(), name())
		case 3:
			_, _, err = c.CommitTable(ctx, name(), nil,
				[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"r": fmt.Sprint(rng.Int())})})
		}
		switch {
		case err == nil,
			errors.Is(err, icecatalog.ErrTableAlreadyExists),
			errors.Is(err, icecatalog.ErrNoSuchTable),
			errors.Is(err, table.ErrCommitFailed):
			return nil
		}
		return err
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 150 {
		if err := op(rng, 12); err != nil {
			t.Fatal(err)
		}
		assertMirrorMatchesBolt(t, c, fmt.Sprintf("sequential op %d", i))
	}

	var (
		stop    atomic.Bool
		reads   atomic.Int64
		readers sync.WaitGroup
		writers sync.WaitGroup
	)
	for r := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			rr := rand.New(rand.NewPCG(uint64(r), 9))
			for !stop.Load() {
				ok, err := c.CheckTableExists(ctx, stable)
				if err != nil || !ok {
					t.Errorf("stable table vanished: %v %v", ok, err)
					return
				}
				id := table.Identifier{[]string{"a", "b"}[rr.IntN(2)], fmt.Sprintf("t%d", rr.IntN(12))}
				if tbl, err := c.LoadTable(ctx, id); err == nil {
					if tbl.Metadata() == nil || tbl.MetadataLocation() == "" {
						t.Errorf("LoadTable(%v) returned an empty table", id)
					}
				} else if !errors.Is(err, icecatalog.ErrNoSuchTable) {
					t.Errorf("LoadTable(%v): %v", id, err)
				}
				if _, err := c.ResolveMetadata(ctx, id); err != nil && !errors.Is(err, icecatalog.ErrNoSuchTable) {
					t.Errorf("ResolveMetadata(%v): %v", id, err)
				}
				reads.Add(3)
			}
		}()
	}
	for w := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			wr := rand.New(rand.NewPCG(uint64(w), 7))
			for range 200 {
				if err := op(wr, 12); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	writers.Wait()
	stop.Store(true)
	readers.Wait()
	if reads.Load() == 0 {
		t.Fatal("readers never ran")
	}
	assertMirrorMatchesBolt(t, c, "after concurrent phase")

	// Reopening rebuilds the mirror from bbolt alone: it must come out the same.
	before := c.tables.pointers()
	dir := c.path[:len(c.path)-len(DBFileName)-1]
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, Options{Dir: dir, Durability: None})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !maps.Equal(r.tables.pointers(), before) {
		t.Fatal("mirror rebuilt at Open differs from the one before Close")
	}
	assertMirrorMatchesBolt(t, r, "after reopen")
}

// TestWarmReadAllocations pins the allocation budget of the hot read paths
// (a count, not a timing): CheckTableExists and ResolveMetadata allocate
// nothing, LoadTable allocates once (the returned table).
func TestWarmReadAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	ctx := context.Background()
	c, err := Open(ctx, Options{Dir: t.TempDir(), Durability: None})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	id := table.Identifier{"db", "t"}
	miss := table.Identifier{"db", "nope"}
	if _, err := c.CreateTable(ctx, id, internalSchema); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		max  float64
		fn   func()
	}{
		{"CheckTableExists/hit", 0, func() { c.CheckTableExists(ctx, id) }},
		{"CheckTableExists/miss", 0, func() { c.CheckTableExists(ctx, miss) }},
		{"ResolveMetadata", 0, func() { c.ResolveMetadata(ctx, id) }},
		{"LoadMetadataJSON", 0, func() { c.LoadMetadataJSON(ctx, id) }},
		{"LoadTable", 1, func() { c.LoadTable(ctx, id) }},
	} {
		if got := testing.AllocsPerRun(200, tc.fn); got > tc.max {
			t.Errorf("%s: %.1f allocs per call, budget %.0f", tc.name, got, tc.max)
		}
	}
}
