package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseFlush(t *testing.T) {
	for in, want := range map[string]Flush{"": FlushSyncfs, " URING ": FlushUring, "fsync": FlushFsync, "syncfs": FlushSyncfs} {
		if got, err := ParseFlush(in); err != nil || got != want {
			t.Errorf("ParseFlush(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFlush("fdatasync"); !errors.Is(err, ErrInvalidFlush) {
		t.Errorf("ParseFlush(fdatasync) = %v, want ErrInvalidFlush", err)
	}
}

// TestFlushFailsOnlyItsFile: in the modes that flush file by file, a file
// that cannot be flushed (it is gone) fails alone, and the other file of
// the batch, with its new directories, is reported durable.
func TestFlushFailsOnlyItsFile(t *testing.T) {
	for _, mode := range []Flush{FlushFsync, FlushUring} {
		t.Run(string(mode), func(t *testing.T) {
			fl, err := newFlusher(mode)
			if err != nil {
				t.Fatal(err)
			}
			defer fl.close()
			var dirs dirTracker
			root := t.TempDir()
			var files []*fileSync
			for _, name := range []string{"a", "b"} {
				dir := filepath.Join(root, name, "metadata")
				plan := dirs.plan(dir)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, "m.json")
				if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, &fileSync{path: p, plan: plan})
			}
			if err := os.Remove(files[1].path); err != nil {
				t.Fatal(err)
			}
			errs := fl.flush(files)
			if errs[0] != nil {
				t.Errorf("file a: %v", errs[0])
			}
			if !errors.Is(errs[1], os.ErrNotExist) {
				t.Errorf("file b (removed): %v, want ErrNotExist", errs[1])
			}
			if got := len(files[0].plan.sync); got != 3 {
				t.Errorf("file a's plan syncs %d directories, want 3 (metadata, a, root)", got)
			}
		})
	}
}
