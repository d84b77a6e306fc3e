package catalog

import (
	"sync"
	"sync/atomic"

	"github.com/apache/iceberg-go/table"
)

// mirrorShards is the number of copy-on-write shards in the pointer mirror.
// A write copies one shard, so with 1M tables a write copies about 15
// entries, and a bulk chunk of BulkChunk tables about BulkChunk × 15, not
// the whole mirror (with 256 shards a chunk touched every shard: about
// 1 s per chunk at 1M tables, BenchmarkMirrorPublish). The costs: an
// array of 512 KiB per catalog, and a lookup of a random table that
// misses the processor's caches more often (BenchmarkMirrorGet: 760 ns
// against 570 ns at 1M tables).
const mirrorShards = 1 << 16

// tableEntry is one table pointer: the location of the table's current
// metadata file, as committed in bbolt. The location never changes; a commit,
// create or rename installs a new entry. The parsed metadata is attached
// either at write time (the writer has it in hand) or by the first reader
// that finds none; since metadata files are immutable it can never go
// stale. The metadata cache (metaCache) may detach it again to stay within
// its byte budget; the next reader reads the file once more.
type tableEntry struct {
	location string
	loaded   atomic.Pointer[loadedMetadata]
	// retired is set once the mirror no longer holds the entry (a commit,
	// rename or drop replaced it), so the cache lets its metadata go.
	retired atomic.Bool
}

// loadedMetadata is the parsed content of the metadata file at location,
// shared by every reader and never modified.
type loadedMetadata struct {
	location string
	meta     table.Metadata
	// raw is the metadata JSON exactly as stored in the file.
	raw []byte
	// fsF is the FS function the table was built with.
	fsF table.FSysF
	// proto is a fully built table for the entry's identifier, built by
	// the first load (see loadedMetadata.table). LoadTable returns a
	// shallow copy of it, so a warm load after the first costs one
	// allocation and reads nothing; the copies share the metadata, the
	// identifier slice, the FS function and the (concurrency-safe)
	// manifest cache.
	proto atomic.Pointer[table.Table]
	// ident and cat are what proto is built with.
	ident table.Identifier
	cat   *Catalog
	// size is what the entry costs the cache's budget: len(raw).
	size int64
	// ref is the cache's "used since the hand last passed" bit.
	ref atomic.Bool
}

// touch marks l as used, for the cache's eviction. It writes only when the
// bit is clear, so warm readers of one table do not contend on it.
func (l *loadedMetadata) touch() {
	if !l.ref.Load() {
		l.ref.Store(true)
	}
}

// DefaultMetadataCacheBytes is the metadata cache budget when
// Options.MetadataCacheBytes is zero.
const DefaultMetadataCacheBytes = 128 << 20

// metaCache bounds the metadata kept parsed in memory: the sum of the
// metadata JSON sizes of the entries it has admitted stays at most limit
// (an entry alone larger than limit is still admitted, and is the next to
// go). It evicts with the CLOCK algorithm: the hand passes over the
// admitted entries, an entry read since the last pass (ref set) gets a
// second chance, any other is detached from its tableEntry; an entry the
// mirror retired is dropped at once. Readers only set ref, without a lock;
// admit takes the cache's mutex. Safe for concurrent use.
type metaCache struct {
	limit int64

	mu    sync.Mutex
	ring  []cachedMeta
	hand  int
	bytes int64
}

// cachedMeta is one admitted entry and the metadata it was admitted with.
type cachedMeta struct {
	e *tableEntry
	l *loadedMetadata
}

// admit accounts for l, attached to e, and evicts other entries until the
// cache is within its limit. Call it once per attachment, after e is
// published (or found) in the mirror.
func (m *metaCache) admit(e *tableEntry, l *loadedMetadata) {
	l.ref.Store(true)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ring = append(m.ring, cachedMeta{e, l})
	m.bytes += l.size
	for m.bytes > m.limit && len(m.ring) > 1 {
		if m.hand >= len(m.ring) {
			m.hand = 0
		}
		c := m.ring[m.hand]
		switch {
		case c.l == l:
			m.hand++ // the entry just admitted stays
		case c.e.retired.Load() || c.e.loaded.Load() != c.l:
			m.drop()
		case c.l.ref.Swap(false):
			m.hand++
		default:
			c.e.loaded.CompareAndSwap(c.l, nil)
			m.drop()
		}
	}
}

// drop removes the entry under the hand. Callers hold mu.
func (m *metaCache) drop() {
	last := len(m.ring) - 1
	m.bytes -= m.ring[m.hand].l.size
	m.ring[m.hand] = m.ring[last]
	m.ring[last] = cachedMeta{}
	m.ring = m.ring[:last]
}

// resident returns the bytes and entries the cache accounts for now.
func (m *metaCache) resident() (bytes int64, entries int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes, len(m.ring)
}

// mirror is the in-memory copy of bbolt's table pointers.
//
// Readers call get without any lock: each shard is an immutable map published
// through an atomic pointer. Writers call set only while holding the
// catalog's writer lock, right after the bbolt transaction that made the same
// change committed, so the mirror is always exactly bbolt's content.
type mirror struct {
	shards [mirrorShards]atomic.Pointer[map[string]*tableEntry]
}

// shardOf is key's mirror shard.
func shardOf(key []byte) int { return int(fnv32a(key) % mirrorShards) }

// fnv32a hashes key with 32-bit FNV-1a.
func fnv32a(key []byte) uint32 {
	h := uint32(2166136261)
	for _, b := range key {
		h ^= uint32(b)
		h *= 16777619
	}
	return h
}

// get returns the entry stored under key, or nil. It does not allocate and
// takes no lock; key is not retained.
func (m *mirror) get(key []byte) *tableEntry {
	shard := m.shards[shardOf(key)].Load()
	if shard == nil {
		return nil
	}
	return (*shard)[string(key)]
}

// set stores e under key, or removes key when e is nil, by publishing a new
// copy of key's shard. Callers must hold the catalog's writer lock.
func (m *mirror) set(key []byte, e *tableEntry) {
	p := &m.shards[shardOf(key)]
	next := copyShard(p.Load(), 1)
	if old := next[string(key)]; old != nil && old != e {
		old.retired.Store(true)
	}
	if e == nil {
		delete(next, string(key))
	} else {
		next[string(key)] = e
	}
	p.Store(&next)
}

// setMany is set for many keys (es[i] for keys[i], none nil), copying
// each shard it touches once rather than once per key: a bulk load of n
// tables into a mirror of m costs O(n + touched shards × m/mirrorShards), not
// O(n × m/mirrorShards). Same locking rule as set.
func (m *mirror) setMany(keys [][]byte, es []*tableEntry) {
	byShard := map[int][]int{}
	for i, k := range keys {
		s := shardOf(k)
		byShard[s] = append(byShard[s], i)
	}
	for s, idx := range byShard {
		p := &m.shards[s]
		next := copyShard(p.Load(), len(idx))
		for _, i := range idx {
			if o := next[string(keys[i])]; o != nil && o != es[i] {
				o.retired.Store(true)
			}
			next[string(keys[i])] = es[i]
		}
		p.Store(&next)
	}
}

// copyShard returns a copy of shard (nil: empty) with room for extra
// more entries.
func copyShard(shard *map[string]*tableEntry, extra int) map[string]*tableEntry {
	n := extra
	if shard != nil {
		n += len(*shard)
	}
	next := make(map[string]*tableEntry, n)
	if shard != nil {
		for k, v := range *shard {
			next[k] = v
		}
	}
	return next
}

// load replaces the whole mirror with pointers (key → location). It is used
// by Open, before the catalog is shared.
func (m *mirror) load(pointers map[string]string) {
	shards := make([]map[string]*tableEntry, mirrorShards)
	for k, loc := range pointers {
		i := shardOf([]byte(k))
		if shards[i] == nil {
			shards[i] = make(map[string]*tableEntry)
		}
		shards[i][k] = &tableEntry{location: loc}
	}
	for i := range shards {
		if shards[i] != nil {
			m.shards[i].Store(&shards[i])
		} else {
			m.shards[i].Store(nil)
		}
	}
}

// pointers returns a copy of the mirror as key → location (for tests and
// diagnostics; it takes no lock, so it is exact only when no write runs).
func (m *mirror) pointers() map[string]string {
	out := make(map[string]string)
	for i := range m.shards {
		if s := m.shards[i].Load(); s != nil {
			for k, e := range *s {
				out[k] = e.location
			}
		}
	}
	return out
}
