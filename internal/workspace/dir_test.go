package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestWorkDir(t *testing.T) {
	d, remove, err := WorkDir("")
	if err != nil || !remove {
		t.Fatalf("WorkDir(\"\") = %q, %v, %v; want a temp dir to remove", d, remove, err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Fatalf("temp dir %s: %v", d, err)
	}
	want := filepath.Join(t.TempDir(), "a", "b")
	got, remove, err := WorkDir(want)
	if err != nil || remove || got != want {
		t.Fatalf("WorkDir(%q) = %q, %v, %v; want it created and kept", want, got, remove, err)
	}
	if entries, _ := os.ReadDir(want); len(entries) != 0 {
		t.Errorf("the writability probe was left behind: %v", entries)
	}
}

// TestRemoveTree: a large tree goes entirely, its progress reported up to
// done == total.
func TestRemoveTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	for i := range 1100 {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i%20))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var last, total int
	if err := RemoveTree(dir, func(_ string, done, n int) { last, total = done, n }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("tree still there: %v", err)
	}
	if total != 1100+20+1 || last != total {
		t.Errorf("progress ended at %d of %d, want %d of %d", last, total, 1121, 1121)
	}
}
