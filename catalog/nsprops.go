package catalog

import (
	"sync"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

// maxCachedNamespaces bounds nsPropsCache; past it the cache starts over.
const maxCachedNamespaces = 4096

// nsPropsCache holds namespaces' decoded properties for creates, which
// read their namespace's properties (its location) once each: a hit costs
// a map lookup instead of a bbolt read transaction and a JSON decode.
//
// Every namespace write (create, drop, property update; see
// Catalog.writeNamespace) invalidates the whole cache as it returns, when
// its change is visible to readers.
// A reader stores what it read only if no invalidation happened since it
// looked the namespace up (the generation it was given), so properties
// read before a change never outlive the change's invalidation. Between a
// change becoming visible and its write returning, a create may still see
// the properties before it: the create and the write are concurrent.
//
// The cached maps are shared: callers must not modify them.
// A nsPropsCache is safe for concurrent use; the zero value is ready.
type nsPropsCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]iceberg.Properties
}

// get returns the cached properties of the namespace with key, or the
// generation a miss's read must be stored under.
func (n *nsPropsCache) get(key []byte) (props iceberg.Properties, gen uint64, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	props, ok = n.m[string(key)]
	return props, n.gen, ok
}

// put caches props as the namespace's with key, read after get returned
// gen, unless the cache was invalidated since.
func (n *nsPropsCache) put(key []byte, props iceberg.Properties, gen uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.gen != gen {
		return
	}
	if n.m == nil || len(n.m) >= maxCachedNamespaces {
		n.m = make(map[string]iceberg.Properties)
	}
	n.m[string(key)] = props
}

// invalidate drops every cached namespace.
func (n *nsPropsCache) invalidate() {
	n.mu.Lock()
	n.gen++
	n.m = nil
	n.mu.Unlock()
}

// namespaceProperties returns ns's properties for a create, from the
// cache or read (see readNamespaces) and cached. The map is shared: the
// caller must not modify it.
func (c *Catalog) namespaceProperties(ns table.Identifier) (iceberg.Properties, error) {
	key := keyOf(ns)
	props, gen, ok := c.nsProps.get(key)
	if ok {
		return props, nil
	}
	if err := c.readNamespaces(func(tx *bolt.Tx) (err error) {
		props, err = namespaceProps(tx, ns)
		return err
	}); err != nil {
		return nil, err
	}
	c.nsProps.put(key, props, gen)
	return props, nil
}
