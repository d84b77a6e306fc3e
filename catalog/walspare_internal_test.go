package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestCommitLogSpareSegment checks that segments after the first come from
// the spare prepared in the background: every rotation after the first is
// a rename of a file of the segment's size holding only zeros, the spare
// exists while the log is open and not after Close, and a stale spare left
// by a crash (garbage, any size) is removed at open and never replayed.
func TestCommitLogSpareSegment(t *testing.T) {
	withLogSizes(t, 8<<10, 1<<30)
	ctx := context.Background()
	dir := t.TempDir()
	walDir := filepath.Join(dir, walDirName)
	if err := os.MkdirAll(walDir, 0o755); err != nil {
		t.Fatal(err)
	}
	spare := filepath.Join(walDir, spareName)
	if err := os.WriteFile(spare, []byte("not a segment: a crash's torn spare"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := openLog(t, dir)
	ns := table.Identifier{"spare"}
	if err := c.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := c.CreateTable(ctx, table.Identifier{"spare", fmt.Sprintf("t%03d", i)}, gcSchema); err != nil {
			t.Fatal(err)
		}
	}
	started, prepared := c.wal.started.Load(), c.wal.prepared.Load()
	if started < 3 {
		t.Fatalf("%d segments started: the test did not rotate", started)
	}
	if prepared != started-1 {
		t.Errorf("%d segments started, %d from the spare: want every one after the first", started, prepared)
	}
	c.wal.mu.Lock()
	segs := append([]uint64(nil), c.wal.segs...)
	c.wal.mu.Unlock()
	for _, first := range segs[:len(segs)-1] {
		fi, err := os.Stat(filepath.Join(walDir, segmentName(first)))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != walSegmentSize {
			t.Errorf("segment %s: %d bytes, want %d", segmentName(first), fi.Size(), walSegmentSize)
		}
	}
	if _, err := c.wal.waitSpare(); err != nil {
		t.Fatalf("spare: %v", err)
	}
	raw, err := os.ReadFile(spare)
	if err != nil {
		t.Fatalf("the next spare is not there while the log is open: %v", err)
	}
	if int64(len(raw)) != walSegmentSize {
		t.Errorf("spare: %d bytes, want %d", len(raw), walSegmentSize)
	}
	for i, b := range raw {
		if b != 0 {
			t.Fatalf("spare byte %d is %#x: the stale spare was reused, not rewritten", i, b)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spare); !os.IsNotExist(err) {
		t.Errorf("spare after Close: %v, want it removed", err)
	}

	c2 := openLog(t, dir)
	n := 0
	for _, err := range c2.ListTables(ctx, ns) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 300 {
		t.Errorf("%d tables after reopen, want 300", n)
	}
}
