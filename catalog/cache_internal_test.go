package catalog

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// BenchmarkMirrorLookup compares the sharded copy-on-write mirror with
// sync.Map for the lock-free pointer lookup (the design choice behind
// CheckTableExists).
func BenchmarkMirrorLookup(b *testing.B) {
	const n = 10000
	var m mirror
	var sm sync.Map
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("ns\x00sub\x00table%05d", i))
		e := &tableEntry{location: string(keys[i])}
		m.set(keys[i], e)
		sm.Store(string(keys[i]), e)
	}
	key := keys[n/2]
	b.Run("sharded-cow", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m.get(key) == nil {
				b.Fatal("miss")
			}
		}
	})
	b.Run("sync.Map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := sm.Load(string(key)); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("sharded-cow-write", func(b *testing.B) {
		e := &tableEntry{location: "x"}
		b.ReportAllocs()
		for b.Loop() {
			m.set(key, e)
		}
	})
}

// TestMetadataCacheBounded loads more metadata than the cache may hold:
// the bytes it holds stay within the budget after every load, every load
// still returns the table's metadata, and a table read between every other
// load keeps its metadata (CLOCK's second chance) while cold ones go.
func TestMetadataCacheBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := Open(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 64<<10)
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	const n = 20
	var size int64
	for i := range n {
		tbl, err := c.CreateTable(ctx, table.Identifier{"ns", fmt.Sprintf("t%02d", i)}, sc,
			icecatalog.WithProperties(iceberg.Properties{"pad": pad}))
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(strings.TrimPrefix(tbl.MetadataLocation(), "file://"))
		if err != nil {
			t.Fatal(err)
		}
		size = st.Size()
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	limit := 4*size + size/2
	c, err = Open(ctx, Options{Dir: dir, MetadataCacheBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	hot := table.Identifier{"ns", "t00"}
	for i := range n {
		for _, id := range []table.Identifier{{"ns", fmt.Sprintf("t%02d", i)}, hot} {
			tbl, err := c.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := tbl.Properties()["pad"]; got != pad {
				t.Fatalf("%v: metadata lost its properties after eviction (%d bytes of pad)", id, len(got))
			}
		}
		if b, entries := c.cache.resident(); b > limit {
			t.Fatalf("after %d loads the cache holds %d bytes in %d entries, over its %d-byte budget", i+1, b, entries, limit)
		}
	}
	attached := 0
	for i := range n {
		if c.tables.get(keyOf(table.Identifier{"ns", fmt.Sprintf("t%02d", i)})).loaded.Load() != nil {
			attached++
		}
	}
	if attached > 4 || attached == 0 {
		t.Errorf("%d of %d tables keep parsed metadata; the budget holds 4", attached, n)
	}
	if c.tables.get(keyOf(hot)).loaded.Load() == nil {
		t.Error("the table read between every load lost its metadata")
	}
}

// TestMetadataCacheDropsRetired checks that commits do not pile up
// metadata: a superseded entry leaves the cache's accounting.
func TestMetadataCacheDropsRetired(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, Options{Dir: t.TempDir(), MetadataCacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	id := table.Identifier{"ns", "t"}
	if _, err := c.CreateTable(ctx, id, sc); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, _, err := c.CommitTable(ctx, id, nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"i": fmt.Sprint(i)})}); err != nil {
			t.Fatal(err)
		}
	}
	if _, entries := c.cache.resident(); entries != 1 {
		t.Errorf("the cache holds %d entries after 10 commits to one table with a 1-byte budget, want 1", entries)
	}
	tbl, err := c.LoadTable(ctx, id)
	if err != nil || tbl.Properties()["i"] != "9" {
		t.Fatalf("load after commits: %v, props %v", err, tbl.Properties())
	}
}

// TestMirrorSetMany: a batch installs every key as set would, keeps the
// keys it does not name, and retires the entries it replaces.
func TestMirrorSetMany(t *testing.T) {
	var m mirror
	kept := &tableEntry{location: "kept"}
	replaced := &tableEntry{location: "old"}
	m.set([]byte("kept"), kept)
	m.set([]byte("k0"), replaced)
	var keys [][]byte
	var es []*tableEntry
	for i := range 1000 {
		keys = append(keys, fmt.Appendf(nil, "k%d", i))
		es = append(es, &tableEntry{location: fmt.Sprint(i)})
	}
	m.setMany(keys, es)
	for i, k := range keys {
		if got := m.get(k); got != es[i] {
			t.Fatalf("get(%s) = %v, want %v", k, got, es[i])
		}
	}
	if m.get([]byte("kept")) != kept {
		t.Error("a key the batch does not name is gone")
	}
	if !replaced.retired.Load() {
		t.Error("the replaced entry is not retired")
	}
	if len(m.pointers()) != 1001 {
		t.Errorf("%d pointers, want 1001", len(m.pointers()))
	}
}

// TestPrototypeBuiltByFirstLoad: a create keeps its metadata but no
// prototype table; the first load builds it, and later loads are copies
// of it; a commit keeps the table it returns as the prototype. Every
// table handed out is of the pointer's metadata.
func TestPrototypeBuiltByFirstLoad(t *testing.T) {
	ctx := context.Background()
	for _, log := range []bool{false, true} {
		t.Run(fmt.Sprintf("log=%v", log), func(t *testing.T) {
			var c *Catalog
			if log {
				c = openLog(t, t.TempDir())
			} else {
				c = openInternal(t, Immediate)
			}
			if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			ident := table.Identifier{"ns", "t"}
			created, err := c.CreateTable(ctx, ident, internalSchema)
			if err != nil {
				t.Fatal(err)
			}
			e := c.tables.get(keyOf(ident))
			l := e.loaded.Load()
			if l == nil {
				t.Fatal("a create keeps no metadata")
			}
			if l.proto.Load() != nil {
				t.Fatal("a create keeps a prototype table")
			}
			first, err := c.LoadTable(ctx, ident)
			if err != nil {
				t.Fatal(err)
			}
			p := l.proto.Load()
			if p == nil {
				t.Fatal("the first load kept no prototype")
			}
			second, err := c.LoadTable(ctx, ident)
			if err != nil {
				t.Fatal(err)
			}
			if e.loaded.Load() != l || l.proto.Load() != p {
				t.Fatal("a second load built its table anew")
			}
			for _, tbl := range []*table.Table{created, first, second} {
				if tbl.MetadataLocation() != e.location || !tbl.Metadata().Equals(l.meta) || !slices.Equal(tbl.Identifier(), ident) {
					t.Fatalf("table of %s %v, want %s %v", tbl.MetadataLocation(), tbl.Identifier(), e.location, ident)
				}
			}
			if first == second {
				t.Fatal("two loads share one *table.Table")
			}

			_, committedAt, err := c.CommitTable(ctx, ident, nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})})
			if err != nil {
				t.Fatal(err)
			}
			e2 := c.tables.get(keyOf(ident))
			l2 := e2.loaded.Load()
			if l2 == nil || l2.proto.Load() == nil {
				t.Fatal("a commit keeps no prototype")
			}
			if l2.proto.Load().MetadataLocation() != e2.location || committedAt != e2.location {
				t.Fatalf("commit: prototype of %s, returned %s, pointer %s", l2.proto.Load().MetadataLocation(), committedAt, e2.location)
			}
		})
	}
}
