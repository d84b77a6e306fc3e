package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
)

func bulkIDs(ns table.Identifier, n int) []table.Identifier {
	out := make([]table.Identifier, n)
	for i := range out {
		out[i] = append(table.Identifier{}, append(ns, fmt.Sprintf("t%05d", i))...)
	}
	return out
}

// TestCreateTablesBulk runs the bulk path without and with the commit log
// (where a chunk is one logged group).
func TestCreateTablesBulk(t *testing.T) {
	for _, commitLog := range []bool{false, true} {
		t.Run(fmt.Sprintf("commit-log=%v", commitLog), func(t *testing.T) { testCreateTablesBulk(t, commitLog) })
	}
}

func openBulk(t *testing.T, dir string, commitLog bool) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), catalog.Options{Dir: dir, Durability: catalog.Immediate, CommitLog: commitLog})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCreateTablesBulk(t *testing.T, commitLog bool) {
	dir := t.TempDir()
	c := openBulk(t, dir, commitLog)
	ctx := context.Background()
	ns := mustNS(t, c, "bulk")
	ids := bulkIDs(ns, catalog.BulkChunk+7) // two chunks, the second short
	var ticks []int
	created, err := c.CreateTables(ctx, ids, testSchema, 4, func(done int) { ticks = append(ticks, done) })
	if err != nil {
		t.Fatalf("CreateTables: %v", err)
	}
	if len(created) != len(ids) {
		t.Fatalf("created %d of %d", len(created), len(ids))
	}
	if want := []int{catalog.BulkChunk, len(ids)}; fmt.Sprint(ticks) != fmt.Sprint(want) {
		t.Errorf("progress %v, want %v", ticks, want)
	}
	if got := listTables(t, c, ns); len(got) != len(ids) {
		t.Fatalf("ListTables: %d tables, want %d", len(got), len(ids))
	}
	tbl, err := c.LoadTable(ctx, ids[len(ids)-1])
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	if !tbl.Schema().Equals(testSchema) {
		t.Errorf("schema %v, want %v", tbl.Schema(), testSchema)
	}
	if !strings.HasSuffix(tbl.MetadataLocation(), ".metadata.json") {
		t.Errorf("metadata location %q", tbl.MetadataLocation())
	}

	// Reopened, every pointer is there and names a file that exists.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c2 := openBulk(t, dir, commitLog)
	if got := listTables(t, c2, ns); len(got) != len(ids) {
		t.Fatalf("after reopen: %d tables, want %d", len(got), len(ids))
	}
	if _, err := c2.LoadTable(ctx, ids[0]); err != nil {
		t.Fatalf("LoadTable after reopen: %v", err)
	}
}

func TestCreateTablesBulkStopsWhole(t *testing.T) {
	dir := t.TempDir()
	c := openAt(t, dir, catalog.Immediate)
	ctx := context.Background()
	ns := mustNS(t, c, "bulk")
	mustTable(t, c, "bulk", "t00003")
	before := tree(t, dir)
	ids := bulkIDs(ns, 10)
	created, err := c.CreateTables(ctx, ids, testSchema, 3, nil)
	if !errors.Is(err, icecatalog.ErrTableAlreadyExists) {
		t.Fatalf("CreateTables over an existing table: %v, want ErrTableAlreadyExists", err)
	}
	if len(created) != 0 {
		t.Errorf("created %v in a failing chunk", created)
	}
	if got := listTables(t, c, ns); len(got) != 1 {
		t.Errorf("ListTables: %v, want the one table made before", got)
	}
	if after := tree(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("files left behind:\nbefore %v\nafter  %v", before, after)
	}

	_, err = c.CreateTables(ctx, []table.Identifier{{"nope", "t"}}, testSchema, 1, nil)
	if !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("CreateTables in a missing namespace: %v, want ErrNoSuchNamespace", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing namespace left a directory: %v", err)
	}
}

// BenchmarkCreateTablesBulk compares loading tables with CreateTables
// against CreateTable from 8 goroutines (the way a setup through the
// catalog API goes), in Immediate mode; ns/op is per table.
func BenchmarkCreateTablesBulk(b *testing.B) {
	ctx := context.Background()
	b.Run("bulk", func(b *testing.B) {
		c := openAt(b, b.TempDir(), catalog.Immediate)
		ns := mustNS(b, c, "bulk")
		ids := bulkIDs(ns, b.N)
		b.ResetTimer()
		if _, err := c.CreateTables(ctx, ids, testSchema, 8, nil); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("create_table_x8", func(b *testing.B) {
		c := openAt(b, b.TempDir(), catalog.Immediate)
		ns := mustNS(b, c, "bulk")
		ids := bulkIDs(ns, b.N)
		b.ResetTimer()
		var wg sync.WaitGroup
		next := make(chan table.Identifier)
		for range 8 {
			wg.Go(func() {
				for id := range next {
					if _, err := c.CreateTable(ctx, id, testSchema); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for _, id := range ids {
			next <- id
		}
		close(next)
		wg.Wait()
	})
}
