package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

// Namespaces are stored in the namespaces bucket under their key (parts
// joined by NUL) with their properties as a JSON object. A nested namespace
// can only be created inside an existing parent, and a namespace can only be
// dropped when it holds neither tables nor child namespaces.

// CreateNamespace creates ns with props. The parent of a nested namespace
// must exist. Errors wrap ErrNamespaceAlreadyExists, ErrNoSuchNamespace (for
// the parent) or ErrInvalidIdentifier.
func (c *Catalog) CreateNamespace(ctx context.Context, ns table.Identifier, props iceberg.Properties) error {
	if err := ValidateIdentifier(ns); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	if props == nil {
		props = iceberg.Properties{}
	}
	val, err := json.Marshal(props)
	if err != nil {
		return fmt.Errorf("create namespace %s: encode properties: %w", identString(ns), err)
	}
	key := keyOf(ns)
	return c.writeNamespace(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNamespaces)
		if b.Get(key) != nil {
			return fmt.Errorf("create namespace %s: %w", identString(ns), icecatalog.ErrNamespaceAlreadyExists)
		}
		if len(ns) > 1 && b.Get(keyOf(ns[:len(ns)-1])) == nil {
			return fmt.Errorf("create namespace %s: parent %s: %w",
				identString(ns), identString(ns[:len(ns)-1]), icecatalog.ErrNoSuchNamespace)
		}
		return c.put(tx, bucketNamespaces, key, val)
	})
}

// DropNamespace removes an empty namespace. Errors wrap ErrNoSuchNamespace
// or ErrNamespaceNotEmpty (it holds tables or child namespaces).
func (c *Catalog) DropNamespace(ctx context.Context, ns table.Identifier) error {
	if err := ValidateIdentifier(ns); err != nil {
		return fmt.Errorf("drop namespace: %w", err)
	}
	key := keyOf(ns)
	prefix := append(keyOf(ns), keySep)
	return c.writeNamespace(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNamespaces)
		if b.Get(key) == nil {
			return fmt.Errorf("drop namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
		}
		if k, _ := b.Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
			return fmt.Errorf("drop namespace %s: it has child namespaces: %w", identString(ns), icecatalog.ErrNamespaceNotEmpty)
		}
		if k, _ := tx.Bucket(bucketTables).Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
			return fmt.Errorf("drop namespace %s: it has tables: %w", identString(ns), icecatalog.ErrNamespaceNotEmpty)
		}
		if vb := tx.Bucket(bucketViews); vb != nil {
			if k, _ := vb.Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
				return fmt.Errorf("drop namespace %s: it has views: %w", identString(ns), icecatalog.ErrNamespaceNotEmpty)
			}
		}
		return c.del(tx, bucketNamespaces, key)
	})
}

// CheckNamespaceExists reports whether ns exists. An invalid identifier is
// an error, not false.
func (c *Catalog) CheckNamespaceExists(ctx context.Context, ns table.Identifier) (bool, error) {
	if err := ValidateIdentifier(ns); err != nil {
		return false, fmt.Errorf("check namespace: %w", err)
	}
	key := keyOf(ns)
	var ok bool
	err := c.read(func(tx *bolt.Tx) error {
		ok = tx.Bucket(bucketNamespaces).Get(key) != nil
		return nil
	})
	return ok, err
}

// LoadNamespaceProperties returns a new, non-nil map of ns's properties.
func (c *Catalog) LoadNamespaceProperties(ctx context.Context, ns table.Identifier) (iceberg.Properties, error) {
	if err := ValidateIdentifier(ns); err != nil {
		return nil, fmt.Errorf("load namespace properties: %w", err)
	}
	var props iceberg.Properties
	err := c.read(func(tx *bolt.Tx) (err error) {
		props, err = namespaceProps(tx, ns)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load namespace properties: %w", err)
	}
	return props, nil
}

// namespaceProps decodes ns's properties inside tx.
func namespaceProps(tx *bolt.Tx, ns table.Identifier) (iceberg.Properties, error) {
	v := tx.Bucket(bucketNamespaces).Get(keyOf(ns))
	if v == nil {
		return nil, fmt.Errorf("namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
	}
	props := iceberg.Properties{}
	if err := json.Unmarshal(v, &props); err != nil {
		return nil, fmt.Errorf("namespace %s: decode properties: %w: %w", identString(ns), ErrCorrupt, err)
	}
	return props, nil
}

// UpdateNamespaceProperties removes removals and sets updates on ns in one
// transaction. A key both removed and updated is an error wrapping
// iceberg.ErrInvalidArgument, and nothing changes. The summary lists keys
// removed, keys whose value was added or changed, and removals that were not
// present.
func (c *Catalog) UpdateNamespaceProperties(ctx context.Context, ns table.Identifier, removals []string, updates iceberg.Properties) (icecatalog.PropertiesUpdateSummary, error) {
	summary := icecatalog.PropertiesUpdateSummary{Removed: []string{}, Updated: []string{}, Missing: []string{}}
	if err := ValidateIdentifier(ns); err != nil {
		return summary, fmt.Errorf("update namespace properties: %w", err)
	}
	for _, k := range removals {
		if _, ok := updates[k]; ok {
			return summary, fmt.Errorf("update namespace properties %s: key %q is both removed and updated: %w",
				identString(ns), k, iceberg.ErrInvalidArgument)
		}
	}
	key := keyOf(ns)
	err := c.writeNamespace(func(tx *bolt.Tx) error {
		props, err := namespaceProps(tx, ns)
		if err != nil {
			return err
		}
		next := maps.Clone(props)
		s := icecatalog.PropertiesUpdateSummary{Removed: []string{}, Updated: []string{}, Missing: []string{}}
		for _, k := range removals {
			if _, ok := next[k]; ok {
				delete(next, k)
				s.Removed = append(s.Removed, k)
			} else {
				s.Missing = append(s.Missing, k)
			}
		}
		for k, v := range updates {
			if old, ok := next[k]; !ok || old != v {
				next[k] = v
				s.Updated = append(s.Updated, k)
			}
		}
		val, err := json.Marshal(next)
		if err != nil {
			return fmt.Errorf("encode properties: %w", err)
		}
		if err := c.put(tx, bucketNamespaces, key, val); err != nil {
			return err
		}
		summary = s
		return nil
	})
	if err != nil {
		return icecatalog.PropertiesUpdateSummary{}, fmt.Errorf("update namespace properties: %w", err)
	}
	return summary, nil
}

// ListNamespaces returns the direct children of parent, or the top-level
// namespaces when parent is empty, in key order. A parent that does not
// exist is an error wrapping ErrNoSuchNamespace.
func (c *Catalog) ListNamespaces(ctx context.Context, parent table.Identifier) ([]table.Identifier, error) {
	if len(parent) > 0 {
		if err := ValidateIdentifier(parent); err != nil {
			return nil, fmt.Errorf("list namespaces: %w", err)
		}
	}
	out := []table.Identifier{}
	err := c.read(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketNamespaces)
		var prefix []byte
		if len(parent) > 0 {
			if b.Get(keyOf(parent)) == nil {
				return fmt.Errorf("list namespaces in %s: %w", identString(parent), icecatalog.ErrNoSuchNamespace)
			}
			prefix = append(keyOf(parent), keySep)
		}
		cur := b.Cursor()
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			if bytes.IndexByte(k[len(prefix):], keySep) >= 0 {
				continue // a grandchild
			}
			out = append(out, identOf(k))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeNamespace commits fn, a change to the namespaces bucket, and then
// empties the namespace-properties cache (see nsPropsCache): once the
// write returns its change is visible, and no create can find properties
// from before it. Every namespace write goes through here.
func (c *Catalog) writeNamespace(fn func(tx *bolt.Tx) error) error {
	defer c.nsProps.invalidate()
	return c.write(fn, nil)
}
