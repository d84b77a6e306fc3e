package catalog

import (
	"context"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

// TestDurabilityModesConfigureBolt checks what each mode asks of bbolt and
// whether it runs the background syncer.
func TestDurabilityModesConfigureBolt(t *testing.T) {
	for _, tc := range []struct {
		d      Durability
		noSync bool
		syncer bool
	}{
		{Immediate, false, false},
		{Eventual, true, true},
		{None, true, false},
	} {
		c, err := Open(context.Background(), Options{Dir: t.TempDir(), Durability: tc.d})
		if err != nil {
			t.Fatal(err)
		}
		if c.db.NoSync != tc.noSync || (c.syncer != nil) != tc.syncer {
			t.Errorf("%s: NoSync=%v syncer=%v", tc.d, c.db.NoSync, c.syncer != nil)
		}
		if err := c.Close(); err != nil {
			t.Errorf("%s: Close: %v", tc.d, err)
		}
	}
}

// TestEventualSyncerDrains checks that in Eventual mode the files written by
// a create are queued for the syncer and that the background loop, then
// Close, drain the queue.
func TestEventualSyncerDrains(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, Options{Dir: t.TempDir(), Durability: Eventual, SyncInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	pending := func() int {
		c.syncer.mu.Lock()
		defer c.syncer.mu.Unlock()
		return len(c.syncer.pending)
	}
	// Stop the loop first so the queue can be observed deterministically.
	close(c.syncer.stop)
	<-c.syncer.done
	if _, err := c.CreateTable(ctx, table.Identifier{"ns", "t"}, internalSchema); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n < 2 {
		t.Fatalf("create queued %d paths, want the file and its directories", n)
	}
	if err := c.syncer.syncOnce(); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Fatalf("%d paths left after a sync round", n)
	}
	// Restart a loop so Close's stop/wait has one to stop.
	c.syncer.stop, c.syncer.done = make(chan struct{}), make(chan struct{})
	go c.syncer.loop()
	if _, err := c.CreateTable(ctx, table.Identifier{"ns", "u"}, internalSchema); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Fatalf("%d paths left after Close", n)
	}
}
