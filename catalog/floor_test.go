package catalog_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nordisk/katbench/catalog"
)

// TestFloorWritesDurableFiles writes from concurrent writers through a
// FileFloor in every flush mode: every write returns without error, every file
// holds its bytes, the writes were committed in batches that account for
// every one of them, and after Close a write fails with ErrClosed.
func TestFloorWritesDurableFiles(t *testing.T) {
	for _, mode := range catalog.Flushes {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			f, err := catalog.OpenFileFloor(filepath.Join(dir, "floor"), mode)
			if err != nil {
				t.Fatal(err)
			}
			if f.FlushMode() != mode {
				t.Fatalf("flush mode %s, want %s", f.FlushMode(), mode)
			}
			const writers, each = 8, 5
			data := bytes.Repeat([]byte("m"), 2600)
			path := func(w, i int) string {
				return filepath.Join(dir, "wh", "ns", fmt.Sprintf("t%d_%d", w, i), "metadata", "00000.metadata.json")
			}
			var wg sync.WaitGroup
			errs := make(chan error, writers*each)
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						errs <- f.Write(path(w, i), data, []byte(path(w, i)))
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			for w := range writers {
				for i := range each {
					got, err := os.ReadFile(path(w, i))
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("%s: %d bytes, %v", path(w, i), len(got), err)
					}
				}
			}
			batches, ops := f.CommitBatches()
			if ops != writers*each || batches == 0 || batches > ops {
				t.Errorf("%d batches holding %d writes, want %d writes in 1..%d batches", batches, ops, writers*each, writers*each)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Write(path(0, 99), data, nil); !errors.Is(err, catalog.ErrClosed) {
				t.Errorf("write after Close: %v, want ErrClosed", err)
			}
		})
	}
}
