package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

// keyBufSize is the stack buffer for building a lookup key; longer
// identifiers still work, with one allocation.
const keyBufSize = 256

// lookup returns ident's mirror entry (nil when there is no such table)
// without a lock and without allocating for a valid identifier.
func (c *Catalog) lookup(ident table.Identifier) (*tableEntry, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if err := validateTableIdent(ident); err != nil {
		return nil, err
	}
	var buf [keyBufSize]byte
	return c.tables.get(appendKey(buf[:0], ident)), nil
}

// loaded returns e's parsed metadata, reading the file the first time after
// Open. Concurrent first readers may both read; one result is kept.
func (c *Catalog) loaded(ctx context.Context, ident table.Identifier, e *tableEntry) (*loadedMetadata, error) {
	if l := e.loaded.Load(); l != nil {
		l.touch()
		return l, nil
	}
	meta, raw, fsF, err := c.readMetadata(ctx, e.location)
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", identString(ident), err)
	}
	l := newLoaded(ident, e.location, meta, raw, fsF, c)
	if e.loaded.CompareAndSwap(nil, l) {
		c.cache.admit(e, l)
		return l, nil
	}
	if cur := e.loaded.Load(); cur != nil {
		return cur, nil
	}
	return l, nil // evicted in between: this read's copy serves the caller
}

func newLoaded(ident table.Identifier, loc string, meta table.Metadata, raw []byte, fsF table.FSysF, c *Catalog) *loadedMetadata {
	return &loadedMetadata{
		ident:    ident,
		cat:      c,
		location: loc,
		meta:     meta,
		raw:      raw,
		fsF:      fsF,
		size:     int64(len(raw)),
	}
}

// table returns a shallow copy of l's prototype table, built by the first
// caller (concurrent first callers may each build one; one is kept).
func (l *loadedMetadata) table() *table.Table {
	p := l.proto.Load()
	if p == nil {
		p = l.newTable()
		if !l.proto.CompareAndSwap(nil, p) {
			p = l.proto.Load()
		}
	}
	t := *p
	return &t
}

// newTable builds a table of l's metadata that is not kept as l's
// prototype.
func (l *loadedMetadata) newTable() *table.Table {
	return table.New(l.ident, l.meta, l.location, l.fsF, l.cat)
}

// CheckTableExists reports whether ident names a table. It consults only the
// in-memory mirror of bbolt's pointers: no lock, no I/O, no allocation. An
// invalid identifier is an error.
func (c *Catalog) CheckTableExists(_ context.Context, ident table.Identifier) (bool, error) {
	e, err := c.lookup(ident)
	if err != nil {
		return false, fmt.Errorf("check table: %w", err)
	}
	return e != nil, nil
}

// LoadTable returns ident's table. Loads of a table created or committed
// through this Catalog, and every load after the first since Open, read
// and parse nothing; once the table has been built for a load (a
// committed table's is built by its commit, a new table's by its first
// load), a load allocates once: the result is a shallow copy of that
// table, sharing its immutable metadata and identifier with other loads.
// Errors wrap ErrNoSuchTable.
func (c *Catalog) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	e, err := c.lookup(ident)
	if err != nil {
		return nil, fmt.Errorf("load table: %w", err)
	}
	if e == nil {
		return nil, fmt.Errorf("load table %s: %w", identString(ident), icecatalog.ErrNoSuchTable)
	}
	l, err := c.loaded(ctx, ident, e)
	if err != nil {
		return nil, err
	}
	return l.table(), nil
}

// ResolveMetadata returns ident's current metadata without building a
// table.Table. The result is shared and immutable: callers must not modify
// it. Errors wrap ErrNoSuchTable.
func (c *Catalog) ResolveMetadata(ctx context.Context, ident table.Identifier) (table.Metadata, error) {
	e, err := c.lookup(ident)
	if err != nil {
		return nil, fmt.Errorf("resolve metadata: %w", err)
	}
	if e == nil {
		return nil, fmt.Errorf("resolve metadata %s: %w", identString(ident), icecatalog.ErrNoSuchTable)
	}
	l, err := c.loaded(ctx, ident, e)
	if err != nil {
		return nil, err
	}
	return l.meta, nil
}

// LoadMetadataJSON returns ident's current metadata location and the
// metadata JSON exactly as stored in that file. raw is shared: callers must
// not modify it. Errors wrap ErrNoSuchTable.
func (c *Catalog) LoadMetadataJSON(ctx context.Context, ident table.Identifier) (location string, raw []byte, err error) {
	e, err := c.lookup(ident)
	if err != nil {
		return "", nil, fmt.Errorf("load metadata json: %w", err)
	}
	if e == nil {
		return "", nil, fmt.Errorf("load metadata json %s: %w", identString(ident), icecatalog.ErrNoSuchTable)
	}
	l, err := c.loaded(ctx, ident, e)
	if err != nil {
		return "", nil, err
	}
	return l.location, l.raw, nil
}

// CreateTable creates ident with schema sc. The table's location is the
// WithLocation option, else the namespace's "location" property joined with
// the table name, else <warehouse>/<namespace parts>/<table>. The metadata
// file <location>/metadata/00000-<uuid>.metadata.json is written (and, in
// Immediate mode, synced) before the pointer is committed. Errors wrap
// ErrTableAlreadyExists, ErrNoSuchNamespace or ErrInvalidIdentifier; on any
// error nothing is committed and the written file is removed.
func (c *Catalog) CreateTable(ctx context.Context, ident table.Identifier, sc *iceberg.Schema, opts ...icecatalog.CreateTableOpt) (*table.Table, error) {
	e, err := c.lookup(ident)
	if err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	if e != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), icecatalog.ErrTableAlreadyExists)
	}
	if sc == nil {
		return nil, fmt.Errorf("create table %s: nil schema: %w", identString(ident), iceberg.ErrInvalidArgument)
	}
	cfg := icecatalog.NewCreateTableCfg()
	for _, opt := range opts {
		opt(&cfg)
	}
	ns := ident[:len(ident)-1]

	nsProps, err := c.namespaceProperties(ns)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}

	var loc checkedLocation
	if cfg.Location != "" {
		loc, err = c.checkLocation("location", cfg.Location)
	} else {
		loc, err = c.tableLocation(ident, nsProps)
	}
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	meta, raw, err := c.newTableMetadata(sc, cfg, loc.loc)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	t, err := c.install(ctx, ident, nil, meta, raw, 0, &loc)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	return t, nil
}

// install writes meta as version's metadata file (raw, its JSON, when
// known; nil: encoded here) and commits it as ident's pointer. base is the
// entry the change was computed from (nil for a new table): the commit
// succeeds only if ident's pointer is still base's location (or, for nil,
// if ident does not exist and its namespace does).
// known is meta's location already checked, when the caller has it.
// On failure the file is removed and nothing changes.
func (c *Catalog) install(ctx context.Context, ident table.Identifier, base *tableEntry, meta table.Metadata, raw []byte, version int, known *checkedLocation) (*table.Table, error) {
	s, err := c.stage(ctx, ident, base, meta, raw, version, known)
	if err != nil {
		return nil, err
	}
	defer s.release()
	if err := c.commit(s.op()); err != nil {
		if !errors.Is(err, ErrCommitStateUnknown) {
			s.discard()
		}
		return nil, err
	}
	c.cache.admit(s.entry, s.loaded)
	return s.table(), nil
}

// staged is a table's next metadata file, written (and durable as the mode
// promises), whose pointer is not committed yet. Its op commits it.
type staged struct {
	c      *Catalog
	ident  table.Identifier
	key    []byte
	base   *tableEntry     // nil: the table must not exist yet
	entry  *tableEntry     // the new pointer, with its metadata attached
	loaded *loadedMetadata // entry's metadata (the cache may detach it)
	file   *fileSync       // nil: durable already
}

// stage writes meta as version's metadata file for ident, computed from
// base (nil for a new table); raw is meta's JSON when known (nil: encoded
// here); known is meta's location already checked, when the caller has it.
// Nothing is committed.
func (c *Catalog) stage(ctx context.Context, ident table.Identifier, base *tableEntry, meta table.Metadata, raw []byte, version int, known *checkedLocation) (*staged, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mf, err := c.newMetadataFile(meta.Location(), meta.Properties(), version, known)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		if raw, err = encodeMetadata(meta); err != nil {
			return nil, fmt.Errorf("encode metadata: %w", err)
		}
	}
	file, err := c.writeMetadata(ctx, mf, raw)
	if err != nil {
		return nil, err
	}
	entry := &tableEntry{location: mf.loc}
	l := newLoaded(ident, mf.loc, meta, raw, mf.io.f, c)
	entry.loaded.Store(l)
	return &staged{c: c, ident: ident, key: keyOf(ident), base: base, entry: entry, loaded: l, file: file}, nil
}

// op is the pointer swing: check compares ident's pointer with base (and,
// for a new table, that its namespace exists), apply stores the new
// location, publish installs the entry in the mirror.
func (s *staged) op() *writeOp {
	return &writeOp{
		check: func(tx *bolt.Tx) error {
			cur := tx.Bucket(bucketTables).Get(s.key)
			switch {
			case s.base == nil && cur != nil:
				return icecatalog.ErrTableAlreadyExists
			case s.base == nil:
				ns := s.ident[:len(s.ident)-1]
				if tx.Bucket(bucketNamespaces).Get(keyOf(ns)) == nil {
					return fmt.Errorf("namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
				}
				if viewPointer(tx, s.key) != nil {
					return errViewHasName
				}
			case cur == nil:
				return fmt.Errorf("%w: table was dropped concurrently: %w", table.ErrCommitFailed, icecatalog.ErrNoSuchTable)
			case string(cur) != s.base.location:
				return fmt.Errorf("%w: metadata location moved from %s to %s concurrently",
					table.ErrCommitFailed, s.base.location, cur)
			}
			return nil
		},
		apply: func(tx *bolt.Tx) error {
			return s.c.put(tx, bucketTables, s.key, []byte(s.entry.location))
		},
		publish: func() { s.c.tables.set(s.key, s.entry) },
		files:   nonNil(s.file),
	}
}

// release releases the staged file's directory plan once its op returned.
func (s *staged) release() { releaseFiles(nonNil(s.file)) }

// discard removes the staged file after its op failed.
func (s *staged) discard() { s.c.removeMetadata(s.entry.location) }

// table is the committed table: for a commit, a copy of the cached
// prototype (the table is likely loaded again); for a new table, one built
// for the caller alone, so that a table created and never loaded does not
// keep a prototype (iceberg-go's table.New gives each table its own
// manifest cache, about 1.75 KB of the live heap) until it is first loaded.
func (s *staged) table() *table.Table {
	if s.base == nil {
		return s.loaded.newTable()
	}
	return s.loaded.table()
}

// ListTables yields the tables directly inside ns, in name order. A missing
// namespace yields one error wrapping ErrNoSuchNamespace. The list is read in
// one transaction before the first yield.
func (c *Catalog) ListTables(ctx context.Context, ns table.Identifier) iter.Seq2[table.Identifier, error] {
	var out []table.Identifier
	err := ValidateIdentifier(ns)
	if err == nil {
		err = c.read(func(tx *bolt.Tx) error {
			if tx.Bucket(bucketNamespaces).Get(keyOf(ns)) == nil {
				return fmt.Errorf("namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
			}
			prefix := append(keyOf(ns), keySep)
			cur := tx.Bucket(bucketTables).Cursor()
			for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
				if bytes.IndexByte(k[len(prefix):], keySep) < 0 {
					out = append(out, identOf(k))
				}
			}
			return nil
		})
	}
	return func(yield func(table.Identifier, error) bool) {
		if err != nil {
			yield(nil, fmt.Errorf("list tables: %w", err))
			return
		}
		for _, id := range out {
			if !yield(id, nil) {
				return
			}
		}
	}
}

// ListTablesAfter returns up to limit tables directly in ns whose names
// sort after after (byte order, the order ListTables lists them in; "" is
// the first page), and whether more follow. It seeks to after and reads
// only the keys of this page, so a page costs about the same in a
// namespace of a hundred tables or of a million, where paging over
// ListTables reads the whole namespace for every page. Safe for concurrent
// use; each call is one read transaction, so pages read at different times
// may see tables created or dropped in between, as any paged listing does.
func (c *Catalog) ListTablesAfter(ctx context.Context, ns table.Identifier, after string, limit int) ([]table.Identifier, bool, error) {
	if limit < 1 {
		return nil, false, fmt.Errorf("list tables: limit %d: want at least 1", limit)
	}
	if err := ValidateIdentifier(ns); err != nil {
		return nil, false, fmt.Errorf("list tables: %w", err)
	}
	var out []table.Identifier
	more := false
	err := c.read(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketNamespaces).Get(keyOf(ns)) == nil {
			return fmt.Errorf("namespace %s: %w", identString(ns), icecatalog.ErrNoSuchNamespace)
		}
		prefix := append(keyOf(ns), keySep)
		cur := tx.Bucket(bucketTables).Cursor()
		for k, _ := cur.Seek(append(bytes.Clone(prefix), after...)); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			name := k[len(prefix):]
			if bytes.IndexByte(name, keySep) >= 0 || (after != "" && string(name) <= after) {
				continue // a nested namespace's table, or the previous page's last
			}
			if len(out) == limit {
				more = true
				return nil
			}
			out = append(out, identOf(k))
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("list tables: %w", err)
	}
	return out, more, nil
}

// DropTable removes ident's pointer. Metadata and data files are left in
// place. Errors wrap ErrNoSuchTable.
func (c *Catalog) DropTable(ctx context.Context, ident table.Identifier) error {
	if err := validateTableIdent(ident); err != nil {
		return fmt.Errorf("drop table: %w", err)
	}
	key := keyOf(ident)
	err := c.write(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTables)
		if b.Get(key) == nil {
			return icecatalog.ErrNoSuchTable
		}
		return c.del(tx, bucketTables, key)
	}, func() { c.tables.set(key, nil) })
	if err != nil {
		return fmt.Errorf("drop table %s: %w", identString(ident), err)
	}
	return nil
}

// RenameTable moves from's pointer to to, which may be in another
// namespace; the table keeps its location and metadata. Errors wrap
// ErrNoSuchTable (from), ErrNoSuchNamespace (to's namespace) or
// ErrTableAlreadyExists (to is a table, or — with ErrNameTaken — a view).
func (c *Catalog) RenameTable(ctx context.Context, from, to table.Identifier) (*table.Table, error) {
	if err := validateTableIdent(from); err != nil {
		return nil, fmt.Errorf("rename table: %w", err)
	}
	if err := validateTableIdent(to); err != nil {
		return nil, fmt.Errorf("rename table: %w", err)
	}
	fromKey, toKey := keyOf(from), keyOf(to)
	toNs := to[:len(to)-1]
	var (
		loc   string
		moved *tableEntry
	)
	err := c.write(func(tx *bolt.Tx) error {
		tables := tx.Bucket(bucketTables)
		cur := tables.Get(fromKey)
		if cur == nil {
			return fmt.Errorf("%s: %w", identString(from), icecatalog.ErrNoSuchTable)
		}
		if tx.Bucket(bucketNamespaces).Get(keyOf(toNs)) == nil {
			return fmt.Errorf("namespace %s: %w", identString(toNs), icecatalog.ErrNoSuchNamespace)
		}
		if tables.Get(toKey) != nil {
			return fmt.Errorf("%s: %w", identString(to), icecatalog.ErrTableAlreadyExists)
		}
		if viewPointer(tx, toKey) != nil {
			return fmt.Errorf("%s: %w", identString(to), errViewHasName)
		}
		loc = string(cur)
		if err := c.del(tx, bucketTables, fromKey); err != nil {
			return err
		}
		return c.put(tx, bucketTables, toKey, []byte(loc))
	}, func() {
		moved = &tableEntry{location: loc}
		if old := c.tables.get(fromKey); old != nil {
			if l := old.loaded.Load(); l != nil {
				moved.loaded.Store(newLoaded(to, loc, l.meta, l.raw, l.fsF, c))
			}
		}
		c.tables.set(fromKey, nil)
		c.tables.set(toKey, moved)
	})
	if err != nil {
		return nil, fmt.Errorf("rename table %s to %s: %w", identString(from), identString(to), err)
	}
	if l := moved.loaded.Load(); l != nil {
		c.cache.admit(moved, l)
	}
	return c.LoadTable(ctx, to)
}
