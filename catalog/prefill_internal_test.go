package catalog

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

// TestBoltFileWrittenAhead: in Immediate mode the bbolt file's pages past
// its high-water mark are written (allocated, not a hole) at least
// prefillLow ahead, at Open and after commits moved the mark on; the
// catalog reopens with every table. Eventual mode writes nothing ahead.
func TestBoltFileWrittenAhead(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	c, err := Open(ctx, Options{Dir: dir, Durability: Immediate})
	if err != nil {
		t.Fatal(err)
	}
	checkAhead := func(when string) {
		t.Helper()
		tx, err := c.db.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		hwm := tx.Size()
		_ = tx.Rollback()
		var st syscall.Stat_t
		if err := syscall.Stat(c.path, &st); err != nil {
			t.Fatal(err)
		}
		if ahead := st.Blocks*512 - hwm; ahead < prefillLow {
			t.Fatalf("%s: %d bytes allocated for a high-water mark of %d: %d ahead, want at least %d", when, st.Blocks*512, hwm, ahead, prefillLow)
		}
	}
	checkAhead("after open")
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	const n = 20
	for i := range n {
		if _, err := c.CreateTable(ctx, table.Identifier{"ns", fmt.Sprintf("t%d", i)}, sc); err != nil {
			t.Fatal(err)
		}
	}
	checkAhead("after the creates")
	// Values past a chunk move the high-water mark on; the next commit
	// step writes the next chunk ahead.
	if err := c.write(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("test-filler"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), make([]byte, 2*prefillChunk))
	}, nil); err != nil {
		t.Fatal(err)
	}
	checkAhead("after the file grew past the first chunk")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = Open(ctx, Options{Dir: dir, Durability: Immediate})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var count int
	if err := c.db.View(func(tx *bolt.Tx) error {
		count = tx.Bucket(bucketTables).Stats().KeyN
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if count != n {
		t.Fatalf("reopened with %d tables, want %d", count, n)
	}

	edir := t.TempDir()
	e, err := Open(ctx, Options{Dir: edir, Durability: Eventual})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fi, err := os.Stat(e.path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= prefillChunk {
		t.Fatalf("eventual mode: bbolt file of %d bytes, written ahead", fi.Size())
	}
}
