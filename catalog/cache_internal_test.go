package catalog

import (
	"fmt"
	"sync"
	"testing"
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
