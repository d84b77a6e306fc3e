package catalog

import (
	"testing"

	"github.com/apache/iceberg-go"
)

// TestNamespaceCacheDropsReadsOlderThanAnInvalidation: properties read
// before an invalidation are not stored after it; read after it, they are.
func TestNamespaceCacheDropsReadsOlderThanAnInvalidation(t *testing.T) {
	var n nsPropsCache
	key := []byte("ns")
	old := iceberg.Properties{"location": "file:///old"}
	_, gen, ok := n.get(key)
	if ok {
		t.Fatal("hit in an empty cache")
	}
	n.invalidate() // a write returned while the read was under way
	n.put(key, old, gen)
	if p, _, ok := n.get(key); ok {
		t.Fatalf("a read older than the invalidation was stored: %v", p)
	}
	_, gen, _ = n.get(key)
	n.put(key, iceberg.Properties{"location": "file:///new"}, gen)
	p, _, ok := n.get(key)
	if !ok || p["location"] != "file:///new" {
		t.Fatalf("get after put: %v %v", p, ok)
	}
	n.invalidate()
	if _, _, ok := n.get(key); ok {
		t.Fatal("hit after invalidate")
	}
}
