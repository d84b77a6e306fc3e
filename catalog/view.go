package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// Views are stored beside tables: the views bucket maps a view's key (parts
// joined by NUL, as for tables) to the location of its current view
// metadata file. The write order and durability are the tables': the
// metadata file is written (and, in Immediate mode, synced) first, the
// pointer is committed in bbolt after; a lost race removes the file. A name
// is a table or a view, never both. Views are not mirrored in memory: every
// read is a bbolt read transaction plus a metadata file read.
var bucketViews = []byte("views")

// ErrNameTaken is a create or rename whose name is held by the other kind
// of object (a table where a view is made, or the reverse). It wraps
// ErrTableAlreadyExists or ErrViewAlreadyExists as the caller's kind needs.
var ErrNameTaken = errors.New("name held by another kind of object")

// errViewHasName is a table create or rename onto a name a view holds.
var errViewHasName = fmt.Errorf("%w: %w: a view has that name", icecatalog.ErrTableAlreadyExists, ErrNameTaken)

// viewBucket returns the views bucket inside a write transaction, creating
// it on first use (catalogs made before views existed have none).
func viewBucket(tx *bolt.Tx) (*bolt.Bucket, error) {
	if tx.Writable() {
		return tx.CreateBucketIfNotExists(bucketViews)
	}
	return tx.Bucket(bucketViews), nil
}

// viewPointer is ident's view metadata location in tx, or nil.
func viewPointer(tx *bolt.Tx, key []byte) []byte {
	b := tx.Bucket(bucketViews)
	if b == nil {
		return nil
	}
	return b.Get(key)
}

// ViewExists reports whether ident names a view. An invalid identifier is
// an error.
func (c *Catalog) CheckViewExists(ctx context.Context, ident table.Identifier) (bool, error) {
	if err := validateTableIdent(ident); err != nil {
		return false, fmt.Errorf("check view: %w", err)
	}
	key := keyOf(ident)
	var ok bool
	err := c.read(func(tx *bolt.Tx) error {
		ok = viewPointer(tx, key) != nil
		return nil
	})
	return ok, err
}

// LoadView returns ident's current view metadata, its location and the
// JSON exactly as stored. Errors wrap ErrNoSuchView.
func (c *Catalog) LoadView(ctx context.Context, ident table.Identifier) (view.Metadata, string, []byte, error) {
	if err := validateTableIdent(ident); err != nil {
		return nil, "", nil, fmt.Errorf("load view: %w", err)
	}
	key := keyOf(ident)
	var loc string
	err := c.read(func(tx *bolt.Tx) error {
		p := viewPointer(tx, key)
		if p == nil {
			return fmt.Errorf("%s: %w", identString(ident), icecatalog.ErrNoSuchView)
		}
		loc = string(p)
		return nil
	})
	if err != nil {
		return nil, "", nil, fmt.Errorf("load view: %w", err)
	}
	meta, raw, err := c.readViewMetadata(ctx, loc)
	if err != nil {
		return nil, "", nil, fmt.Errorf("load view %s: %w", identString(ident), err)
	}
	return meta, loc, raw, nil
}

func (c *Catalog) readViewMetadata(ctx context.Context, loc string) (view.Metadata, []byte, error) {
	fsys, _, err := c.fsFor(loc)
	if err != nil {
		return nil, nil, err
	}
	raw, err := readAll(fsys, loc)
	if err != nil {
		return nil, nil, fmt.Errorf("read view metadata %s: %w", loc, err)
	}
	meta, err := view.ParseMetadataBytes(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("parse view metadata %s: %w", loc, err)
	}
	return meta, raw, nil
}

// ViewSpec is what a new view is made of.
type ViewSpec struct {
	Version    *view.Version
	Schema     *iceberg.Schema
	Location   string // "" for the default, as for tables
	Properties iceberg.Properties
}

// CreateView creates ident from spec. Errors wrap ErrViewAlreadyExists
// (ErrNameTaken too when a table has the name), ErrNoSuchNamespace,
// ErrInvalidLocation or ErrInvalidIdentifier; on error nothing is
// committed and the written file is removed.
func (c *Catalog) CreateView(ctx context.Context, ident table.Identifier, spec ViewSpec) (view.Metadata, string, error) {
	if err := validateTableIdent(ident); err != nil {
		return nil, "", fmt.Errorf("create view: %w", err)
	}
	if spec.Version == nil || spec.Schema == nil {
		return nil, "", fmt.Errorf("create view %s: a version and a schema are required: %w", identString(ident), iceberg.ErrInvalidArgument)
	}
	loc := spec.Location
	var err error
	if loc != "" {
		loc, err = c.CheckLocation("location", loc)
	} else {
		loc, err = c.TableLocation(ctx, ident)
	}
	if err != nil {
		return nil, "", fmt.Errorf("create view %s: %w", identString(ident), err)
	}
	meta, err := view.NewMetadataWithUUID(spec.Version, spec.Schema, loc, spec.Properties, uuid.New())
	if err != nil {
		return nil, "", fmt.Errorf("create view %s: %w: %w", identString(ident), iceberg.ErrInvalidArgument, err)
	}
	mloc, err := c.installView(ctx, ident, "", meta, 0)
	if err != nil {
		return nil, "", fmt.Errorf("create view %s: %w", identString(ident), err)
	}
	return meta, mloc, nil
}

// CommitView checks reqs against ident's current view metadata, applies
// updates with iceberg-go's view.MetadataBuilder, writes the next metadata
// version and swings the pointer, atomically per view as CommitTable is.
// A failed requirement or a lost race wraps table.ErrCommitFailed.
func (c *Catalog) CommitView(ctx context.Context, ident table.Identifier, reqs []view.Requirement, updates []view.Update) (view.Metadata, string, error) {
	cur, curLoc, _, err := c.LoadView(ctx, ident)
	if err != nil {
		return nil, "", fmt.Errorf("commit view: %w", err)
	}
	for _, r := range reqs {
		if err := r.Validate(cur); err != nil {
			return nil, "", fmt.Errorf("commit view %s: %w: %w", identString(ident), table.ErrCommitFailed, err)
		}
	}
	b, err := view.MetadataBuilderFromBase(cur)
	if err != nil {
		return nil, "", fmt.Errorf("commit view %s: %w", identString(ident), err)
	}
	for _, u := range updates {
		if err := u.Apply(b); err != nil {
			return nil, "", fmt.Errorf("commit view %s: %w: %w", identString(ident), iceberg.ErrInvalidArgument, err)
		}
	}
	res, err := b.Build()
	if err != nil {
		return nil, "", fmt.Errorf("commit view %s: %w: %w", identString(ident), iceberg.ErrInvalidArgument, err)
	}
	next := res.Metadata
	if next.Location() != cur.Location() {
		if _, err := c.CheckLocation("set-location", next.Location()); err != nil {
			return nil, "", fmt.Errorf("commit view %s: %w", identString(ident), err)
		}
	}
	version := metadataVersion(curLoc) + 1
	if version <= 0 {
		version = 1
	}
	mloc, err := c.installView(ctx, ident, curLoc, next, version)
	if err != nil {
		return nil, "", fmt.Errorf("commit view %s: %w", identString(ident), err)
	}
	return next, mloc, nil
}

// installView writes meta as version's view metadata file and commits it as
// ident's pointer if the pointer still is base ("" for a new view, which
// also needs the namespace and a free name).
func (c *Catalog) installView(ctx context.Context, ident table.Identifier, base string, meta view.Metadata, version int) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	raw, err := json.Marshal(meta)
	if err != nil {
		return "", fmt.Errorf("encode view metadata: %w", err)
	}
	mf, err := c.newMetadataFile(meta.Location(), meta.Properties(), version, nil)
	if err != nil {
		return "", err
	}
	loc := mf.loc
	file, err := c.writeMetadata(ctx, mf, raw)
	if err != nil {
		return "", err
	}
	defer file.release()
	key := keyOf(ident)
	ns := ident[:len(ident)-1]
	err = c.write(func(tx *bolt.Tx) error {
		views, err := viewBucket(tx)
		if err != nil {
			return err
		}
		cur := views.Get(key)
		switch {
		case base == "" && cur != nil:
			return icecatalog.ErrViewAlreadyExists
		case base == "":
			if tx.Bucket(bucketNamespaces).Get(keyOf(ns)) == nil {
				return fmt.Errorf("namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
			}
			if tx.Bucket(bucketTables).Get(key) != nil {
				return fmt.Errorf("%w: %w: a table has that name", icecatalog.ErrViewAlreadyExists, ErrNameTaken)
			}
		case cur == nil:
			return fmt.Errorf("%w: view was dropped concurrently: %w", table.ErrCommitFailed, icecatalog.ErrNoSuchView)
		case string(cur) != base:
			return fmt.Errorf("%w: view metadata location moved from %s to %s concurrently", table.ErrCommitFailed, base, cur)
		}
		return c.put(tx, bucketViews, key, []byte(loc))
	}, nil, nonNil(file)...)
	if err != nil {
		if !errors.Is(err, ErrCommitStateUnknown) {
			c.removeMetadata(loc)
		}
		return "", err
	}
	return loc, nil
}

// ListViews returns the views directly inside ns, in name order. Errors
// wrap ErrNoSuchNamespace.
func (c *Catalog) ListViews(ctx context.Context, ns table.Identifier) ([]table.Identifier, error) {
	if err := ValidateIdentifier(ns); err != nil {
		return nil, fmt.Errorf("list views: %w", err)
	}
	out := []table.Identifier{}
	err := c.read(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketNamespaces).Get(keyOf(ns)) == nil {
			return fmt.Errorf("namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
		}
		b := tx.Bucket(bucketViews)
		if b == nil {
			return nil
		}
		prefix := append(keyOf(ns), keySep)
		cur := b.Cursor()
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			if bytes.IndexByte(k[len(prefix):], keySep) < 0 {
				out = append(out, identOf(k))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list views: %w", err)
	}
	return out, nil
}

// DropView removes ident's pointer; files stay. Errors wrap ErrNoSuchView.
func (c *Catalog) DropView(ctx context.Context, ident table.Identifier) error {
	if err := validateTableIdent(ident); err != nil {
		return fmt.Errorf("drop view: %w", err)
	}
	key := keyOf(ident)
	err := c.write(func(tx *bolt.Tx) error {
		b, err := viewBucket(tx)
		if err != nil {
			return err
		}
		if b.Get(key) == nil {
			return icecatalog.ErrNoSuchView
		}
		return c.del(tx, bucketViews, key)
	}, nil)
	if err != nil {
		return fmt.Errorf("drop view %s: %w", identString(ident), err)
	}
	return nil
}

// RenameView moves from's pointer to to. Errors wrap ErrNoSuchView (from),
// ErrNoSuchNamespace (to's namespace) or ErrViewAlreadyExists (to is a
// view, or — with ErrNameTaken — a table).
func (c *Catalog) RenameView(ctx context.Context, from, to table.Identifier) error {
	if err := validateTableIdent(from); err != nil {
		return fmt.Errorf("rename view: %w", err)
	}
	if err := validateTableIdent(to); err != nil {
		return fmt.Errorf("rename view: %w", err)
	}
	fromKey, toKey := keyOf(from), keyOf(to)
	toNs := to[:len(to)-1]
	err := c.write(func(tx *bolt.Tx) error {
		b, err := viewBucket(tx)
		if err != nil {
			return err
		}
		cur := b.Get(fromKey)
		if cur == nil {
			return fmt.Errorf("%s: %w", identString(from), icecatalog.ErrNoSuchView)
		}
		if tx.Bucket(bucketNamespaces).Get(keyOf(toNs)) == nil {
			return fmt.Errorf("namespace %s: %w", identString(toNs), icecatalog.ErrNoSuchNamespace)
		}
		if b.Get(toKey) != nil {
			return fmt.Errorf("%s: %w", identString(to), icecatalog.ErrViewAlreadyExists)
		}
		if tx.Bucket(bucketTables).Get(toKey) != nil {
			return fmt.Errorf("%s: %w: %w: a table has that name", identString(to), icecatalog.ErrViewAlreadyExists, ErrNameTaken)
		}
		loc := bytes.Clone(cur)
		if err := c.del(tx, bucketViews, fromKey); err != nil {
			return err
		}
		return c.put(tx, bucketViews, toKey, loc)
	}, nil)
	if err != nil {
		return fmt.Errorf("rename view %s to %s: %w", identString(from), identString(to), err)
	}
	return nil
}
