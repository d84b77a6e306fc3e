package dataset

import (
	"context"
	"errors"
	"slices"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/testenv/catalogtest"
)

// TestGrowReusesTables builds a sweep's first size on the embedded
// catalog, grows it to the second, and checks that every leaf holds the
// second size's share, the first size's tables were kept, and d.Tables
// lists each leaf's tables as one run (as Build does) — through
// CreateTable (Grow) and through the catalog's bulk path (GrowBulk).
func TestGrowReusesTables(t *testing.T) {
	for _, bulk := range []bool{false, true} {
		t.Run(map[bool]string{false: "create_table", true: "bulk"}[bulk], func(t *testing.T) { testGrowReusesTables(t, bulk) })
	}
}

func testGrowReusesTables(t *testing.T, bulk bool) {
	ctx := context.Background()
	cat := catalogtest.Open(t)
	sizes := []int{8, 20}
	d, err := Build(ctx, cat, "sweep", SweepShape(sizes, sizes[0], 0), 2, nil)
	if err != nil || d.TablesErr != nil {
		t.Fatal(err, d.TablesErr)
	}
	first := slices.Clone(d.Tables)
	shape := SweepShape(sizes, sizes[1], 0)
	grow := func() error { return d.Grow(ctx, cat, shape, 3, nil) }
	if bulk {
		var ticks []int
		grow = func() error {
			return d.GrowBulk(ctx, cat, cat, shape, 3, func(_ string, done, _ int) { ticks = append(ticks, done) })
		}
		defer func() {
			if len(ticks) == 0 || ticks[len(ticks)-1] != shape.Tables() {
				t.Errorf("bulk progress %v, want it to end at %d", ticks, shape.Tables())
			}
		}()
	}
	if err := grow(); err != nil {
		t.Fatal(err)
	}
	if len(d.Tables) != shape.Tables() || shape.Tables() < 20 {
		t.Fatalf("%d tables after growing, want %d (≥ 20)", len(d.Tables), shape.Tables())
	}
	for _, id := range first {
		if !slices.ContainsFunc(d.Tables, func(x table.Identifier) bool { return slices.Equal(x, id) }) {
			t.Fatalf("table %v of the first size is gone", id)
		}
	}
	leaves := d.Leaves()
	if len(leaves) != shape.Leaves() {
		t.Fatalf("d.Tables runs over %d leaves (%v), want %d: a leaf's tables are not one run", len(leaves), leaves, shape.Leaves())
	}
	for _, leaf := range leaves {
		var listed int
		for _, err := range cat.ListTables(ctx, leaf) {
			if err != nil {
				t.Fatal(err)
			}
			listed++
		}
		if listed != shape.TablesPerLeaf {
			t.Errorf("leaf %v lists %d tables, want %d", leaf, listed, shape.TablesPerLeaf)
		}
	}
	if err := d.Drop(ctx, cat, nil, 2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.LoadNamespaceProperties(ctx, d.Root); err == nil {
		t.Error("the dataset's root namespace survives Drop")
	} else if !isNoSuchNamespace(err) {
		t.Errorf("after Drop: %v", err)
	}
}

func isNoSuchNamespace(err error) bool {
	return err != nil && errors.Is(err, icecatalog.ErrNoSuchNamespace)
}

// TestGrowPerNamespace: with --per-namespace a leaf holds the same tables
// at every size and the sweep adds leaf namespaces; Drop removes them.
func TestGrowPerNamespace(t *testing.T) {
	ctx := context.Background()
	cat := catalogtest.Open(t)
	sizes := []int{6, 15}
	first := SweepShape(sizes, sizes[0], 3)
	if first != (Shape{Width: 2, Depth: 1, TablesPerLeaf: 3}) {
		t.Fatalf("shape at 6 tables, 3 per namespace: %+v", first)
	}
	d, err := Build(ctx, cat, "perns", first, 2, nil)
	if err != nil || d.TablesErr != nil {
		t.Fatal(err, d.TablesErr)
	}
	shape := SweepShape(sizes, sizes[1], 3)
	if err := d.GrowBulk(ctx, cat, cat, shape, 2, nil); err != nil {
		t.Fatal(err)
	}
	leaves := d.leafNamespaces(1)
	if len(leaves) != 5 || len(d.Tables) != 15 {
		t.Fatalf("%d leaves, %d tables after growing; want 5 and 15", len(leaves), len(d.Tables))
	}
	for _, leaf := range leaves {
		n := 0
		for _, err := range cat.ListTables(ctx, leaf) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 3 {
			t.Errorf("leaf %v holds %d tables, want 3", leaf, n)
		}
	}
	if err := d.Drop(ctx, cat, nil, 2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.LoadNamespaceProperties(ctx, d.Root); !isNoSuchNamespace(err) {
		t.Errorf("after Drop the root namespace: %v", err)
	}
}
