package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
)

// TestCreateSeesNamespaceChanges: a create places its table by its
// namespace's properties as they are when it starts, also after earlier
// creates read (and cached) them: a location set, changed and removed,
// and a namespace dropped and created again, each reach the next create,
// with and without the commit log.
func TestCreateSeesNamespaceChanges(t *testing.T) {
	for _, log := range []bool{false, true} {
		t.Run(fmt.Sprintf("log=%v", log), func(t *testing.T) {
			c, ns, wh := openWithNamespace(t, log)
			ctx := context.Background()
			n := 0
			create := func(wantBase string) {
				t.Helper()
				n++
				name := fmt.Sprintf("t%d", n)
				tbl, err := c.CreateTable(ctx, table.Identifier{"ns", name}, testSchema)
				if err != nil {
					t.Fatalf("create %s: %v", name, err)
				}
				if got, want := tbl.Location(), wantBase+"/"+name; got != want {
					t.Fatalf("create %s: location %q, want %q", name, got, want)
				}
			}
			setLoc := func(loc string) {
				t.Helper()
				var err error
				if loc == "" {
					_, err = c.UpdateNamespaceProperties(ctx, ns, []string{"location"}, nil)
				} else {
					_, err = c.UpdateNamespaceProperties(ctx, ns, nil, iceberg.Properties{"location": loc})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			base := wh + "/ns"
			create(base)
			create(base) // from the cache
			setLoc(wh + "/a")
			create(wh + "/a")
			create(wh + "/a")
			setLoc(wh + "/b/")
			create(wh + "/b")
			setLoc("")
			create(base)

			// Dropped: the next create fails, and nothing is cached of it.
			for i := 1; i <= n; i++ {
				if err := c.DropTable(ctx, table.Identifier{"ns", fmt.Sprintf("t%d", i)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.DropNamespace(ctx, ns); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CreateTable(ctx, table.Identifier{"ns", "gone"}, testSchema); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
				t.Fatalf("create in a dropped namespace: %v, want ErrNoSuchNamespace", err)
			}
			if err := c.CreateNamespace(ctx, ns, iceberg.Properties{"location": wh + "/c"}); err != nil {
				t.Fatal(err)
			}
			create(wh + "/c")
		})
	}
}

// TestCreateAfterNamespaceUpdateReturns: creates run on while the
// namespace's location is changed again and again; every create that
// starts after an update returned is placed by that update's location or
// a later one, never by one before it.
func TestCreateAfterNamespaceUpdateReturns(t *testing.T) {
	c, ns, wh := openWithNamespace(t, true)
	ctx := context.Background()
	const updates, workers = 40, 4
	var (
		mu       sync.Mutex
		returned = -1 // the last update that returned
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				floor := returned
				mu.Unlock()
				name := fmt.Sprintf("w%d_%d", w, i)
				tbl, err := c.CreateTable(ctx, table.Identifier{"ns", name}, testSchema)
				if err != nil {
					errs <- err
					return
				}
				var got int
				if _, err := fmt.Sscanf(strings.TrimPrefix(tbl.Location(), wh+"/v"), "%d/", &got); err != nil {
					got = -1 // the warehouse default: before the first update
				}
				if got < floor {
					errs <- fmt.Errorf("%s started after update %d returned, placed by update %d (%s)", name, floor, got, tbl.Location())
					return
				}
			}
		})
	}
	for u := range updates {
		if _, err := c.UpdateNamespaceProperties(ctx, ns, nil, iceberg.Properties{"location": fmt.Sprintf("%s/v%d", wh, u)}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		returned = u
		mu.Unlock()
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// openWithNamespace opens a durable catalog in a new directory, with the
// commit log when log is set, creates namespace "ns" in it, and returns
// them with the warehouse's location. The catalog closes with the test.
func openWithNamespace(t *testing.T, log bool) (*catalog.Catalog, table.Identifier, string) {
	t.Helper()
	dir := t.TempDir()
	c, err := catalog.Open(context.Background(), catalog.Options{Dir: dir, Durability: catalog.Immediate, CommitLog: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, mustNS(t, c, "ns"), "file://" + filepath.ToSlash(filepath.Join(dir, "warehouse"))
}
