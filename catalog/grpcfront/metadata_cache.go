package grpcfront

import (
	"maps"
	"strings"
	"sync"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// maxCachedMetadata is a safety bound on the client's metadata cache. The
// cache normally holds one entry per table the client has seen (an entry is
// dropped when its table moves to a new location), so a run over a 10,000
// table dataset stays warm; the bound only matters for clients that see
// many more tables than that.
const maxCachedMetadata = 1 << 16

// cachedMetadata is what one metadata location resolves to: the parsed,
// immutable metadata and the file IO function tables built on it use.
type cachedMetadata struct {
	meta table.Metadata
	fsF  table.FSysF
}

// metadataCache maps metadata locations to parsed metadata. A location names
// one immutable metadata file, so an entry never goes stale; it is dropped
// when the table it was resolved for moves on to a newer location, or at
// random when the cache is full. Safe for concurrent use; hits take a read
// lock and allocate nothing.
type metadataCache struct {
	props iceberg.Properties // client IO properties, read-only

	mu      sync.RWMutex
	entries map[string]*cachedMetadata // metadata location → entry
	current map[string]string          // "ns.table" → its latest cached location
}

func newMetadataCache(props iceberg.Properties) *metadataCache {
	return &metadataCache{
		props:   props,
		entries: make(map[string]*cachedMetadata),
		current: make(map[string]string),
	}
}

// resolve returns the entry for loc, parsing raw only on a miss. Two racing
// misses both parse; the first stored wins, which is harmless.
func (c *metadataCache) resolve(ident table.Identifier, loc string, raw []byte) (*cachedMetadata, error) {
	c.mu.RLock()
	e, ok := c.entries[loc]
	c.mu.RUnlock()
	if ok {
		return e, nil
	}
	meta, err := table.ParseMetadataBytes(raw)
	if err != nil {
		return nil, err
	}
	return c.store(ident, loc, meta), nil
}

// store caches meta under loc (when loc is non-empty) as ident's current
// metadata, and returns the entry.
func (c *metadataCache) store(ident table.Identifier, loc string, meta table.Metadata) *cachedMetadata {
	// IO properties as the REST client builds them: the client's, overlaid
	// with the table's own.
	props := maps.Clone(c.props)
	if props == nil {
		props = iceberg.Properties{}
	}
	maps.Copy(props, meta.Properties())
	e := &cachedMetadata{meta: meta, fsF: table.FSysF(iceio.LoadFSFunc(props, loc))}
	if loc == "" {
		return e
	}
	key := strings.Join(ident, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[loc]; ok {
		c.current[key] = loc
		return old
	}
	if prev, ok := c.current[key]; ok && prev != loc {
		delete(c.entries, prev) // the table moved on; its old metadata is history
	}
	if len(c.entries) >= maxCachedMetadata {
		for k := range c.entries { // map order is random: evict one at random
			delete(c.entries, k)
			break
		}
	}
	if len(c.current) >= maxCachedMetadata {
		for k := range c.current {
			delete(c.current, k)
			break
		}
	}
	c.entries[loc] = e
	c.current[key] = loc
	return e
}

// len reports the number of cached locations (for tests).
func (c *metadataCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
