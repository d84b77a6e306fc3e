package catalog

import (
	"fmt"
	"testing"
)

// BenchmarkMirrorPublish measures what publishing new table pointers
// costs in a mirror that already holds m of them: a chunk of the bulk
// path (setMany, BulkChunk keys) and a single create (set). Both copy the
// shards they touch, so their cost grows with m; ns/op is per chunk or
// per create.
func BenchmarkMirrorPublish(b *testing.B) {
	for _, m := range []int{100_000, 1_000_000} {
		base := make(map[string]string, m)
		for i := range m {
			base[fmt.Sprintf("ns%d\x00t%07d", i%100, i)] = "loc"
		}
		b.Run(fmt.Sprintf("chunk/m=%d", m), func(b *testing.B) {
			var mr mirror
			mr.load(base)
			keys := make([][]byte, BulkChunk)
			es := make([]*tableEntry, BulkChunk)
			for i := range es {
				es[i] = &tableEntry{location: "new"}
			}
			n := 0
			for b.Loop() {
				for i := range keys {
					keys[i] = fmt.Appendf(nil, "new%d\x00t%09d", i%100, n)
					n++
				}
				mr.setMany(keys, es)
			}
		})
		b.Run(fmt.Sprintf("create/m=%d", m), func(b *testing.B) {
			var mr mirror
			mr.load(base)
			e := &tableEntry{location: "new"}
			n := 0
			for b.Loop() {
				mr.set(fmt.Appendf(nil, "new\x00t%09d", n), e)
				n++
			}
		})
	}
}

// BenchmarkMirrorGet looks up random keys of a mirror of m tables (the
// pointer lookup of every load_table): more shards must not make it
// slower.
func BenchmarkMirrorGet(b *testing.B) {
	for _, m := range []int{100_000, 1_000_000} {
		base := make(map[string]string, m)
		keys := make([][]byte, 0, m)
		for i := range m {
			k := fmt.Sprintf("ns%d\x00t%07d", i%100, i)
			base[k] = "loc"
			keys = append(keys, []byte(k))
		}
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			var mr mirror
			mr.load(base)
			i := uint32(1)
			for b.Loop() {
				i ^= i << 13
				i ^= i >> 17
				i ^= i << 5
				if mr.get(keys[int(i)%m]) == nil {
					b.Fatal("miss")
				}
			}
		})
	}
}
