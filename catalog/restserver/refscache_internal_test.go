package restserver

import (
	"bytes"
	"fmt"
	"testing"
)

// TestRefsCacheKeepsAndEvictsOldestFirst: an answer put is got back as
// put; past the byte bound the oldest entries go first; an answer larger
// than a quarter of the bound is not kept.
func TestRefsCacheKeepsAndEvictsOldestFirst(t *testing.T) {
	var c refsCache
	if _, ok := c.get("a"); ok {
		t.Fatal("empty cache answered")
	}
	chunk := refsCacheBytes / 8
	for i := range 8 {
		c.put(fmt.Sprintf("v%d", i), bytes.Repeat([]byte{byte(i)}, chunk))
	}
	if b, ok := c.get("v0"); !ok || len(b) != chunk || b[0] != 0 {
		t.Fatalf("v0 = %d bytes (%v), want the %d put", len(b), ok, chunk)
	}
	c.put("v8", bytes.Repeat([]byte{8}, chunk)) // one too many: v0 goes
	if _, ok := c.get("v0"); ok {
		t.Error("v0 still held past the bound")
	}
	for i := 1; i <= 8; i++ {
		if b, ok := c.get(fmt.Sprintf("v%d", i)); !ok || b[0] != byte(i) {
			t.Errorf("v%d lost or changed", i)
		}
	}
	if c.bytes > refsCacheBytes {
		t.Errorf("holds %d bytes, bound %d", c.bytes, refsCacheBytes)
	}
	c.put("huge", make([]byte, refsCacheBytes/4+1))
	if _, ok := c.get("huge"); ok {
		t.Error("an answer over a quarter of the bound was kept")
	}
}
