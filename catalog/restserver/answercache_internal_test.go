package restserver

import (
	"bytes"
	"fmt"
	"testing"
)

// TestAnswerCacheKeepsAndEvictsOldestFirst: an answer put is got back as
// put, apart for each mode of one location; past the byte bound the oldest
// entries go first; an answer larger than a quarter of the bound, or one
// without a location to key it by, is not kept.
func TestAnswerCacheKeepsAndEvictsOldestFirst(t *testing.T) {
	var c answerCache
	if _, ok := c.get(answerKey{"a", false}); ok {
		t.Fatal("empty cache answered")
	}
	chunk := answerCacheBytes / 8
	for i := range 8 {
		c.put(answerKey{fmt.Sprintf("v%d", i), i%2 == 1}, encodedAnswer{body: bytes.Repeat([]byte{byte(i)}, chunk), etag: fmt.Sprint(i)})
	}
	if a, ok := c.get(answerKey{"v0", false}); !ok || len(a.body) != chunk || a.body[0] != 0 || a.etag != "0" {
		t.Fatalf("v0 = %d bytes, tag %q (%v), want the %d put", len(a.body), a.etag, ok, chunk)
	}
	if _, ok := c.get(answerKey{"v0", true}); ok {
		t.Fatal("the all answer of v0 was got as its refs answer")
	}
	c.put(answerKey{"v8", false}, encodedAnswer{body: bytes.Repeat([]byte{8}, chunk)}) // one too many: v0 goes
	if _, ok := c.get(answerKey{"v0", false}); ok {
		t.Error("v0 still held past the bound")
	}
	for i := 1; i <= 8; i++ {
		if a, ok := c.get(answerKey{fmt.Sprintf("v%d", i), i%2 == 1 && i < 8}); !ok || a.body[0] != byte(i) {
			t.Errorf("v%d lost or changed", i)
		}
	}
	if c.bytes > answerCacheBytes {
		t.Errorf("holds %d bytes, bound %d", c.bytes, answerCacheBytes)
	}
	c.put(answerKey{"huge", false}, encodedAnswer{body: make([]byte, answerCacheBytes/4+1)})
	if _, ok := c.get(answerKey{"huge", false}); ok {
		t.Error("an answer over a quarter of the bound was kept")
	}
	c.put(answerKey{"", false}, encodedAnswer{body: []byte("{}")})
	if _, ok := c.get(answerKey{"", false}); ok {
		t.Error("an answer without a location was kept")
	}
}
