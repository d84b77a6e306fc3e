package catalog

import (
	"context"
	"errors"
	"fmt"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

var _ icecatalog.TransactionalCatalog = (*Catalog)(nil)

// stagedCommit is one table's part of a multi-table commit: the entry it
// was computed from and the metadata file written for it.
type stagedCommit struct {
	ident  table.Identifier
	key    []byte
	base   *tableEntry
	loc    string
	entry  *tableEntry
	loaded *loadedMetadata
	meta   table.Metadata
}

// CommitTransaction commits changes to several existing tables atomically
// (the REST route POST /v1/transactions/commit): every table's requirements
// are checked and its next metadata file is written first, then one bbolt
// write transaction swings every pointer, each only if it still names the
// metadata its requirements were checked against. Either every table
// changes or none does; on failure every written file is removed. A failed
// requirement or a lost race wraps table.ErrCommitFailed; a missing table
// wraps ErrNoSuchTable; a table named twice is invalid. Creates through
// assert-create are not part of a transaction.
//
// This is a separate write from CommitTable's (one bbolt Update over
// several pointers), so both keep the same write order and durability.
func (c *Catalog) CommitTransaction(ctx context.Context, commits []table.TableCommit) error {
	staged := make([]stagedCommit, 0, len(commits))
	var files []*fileSync
	defer func() { releaseFiles(files) }()
	cleanup := func() {
		for _, s := range staged {
			c.removeMetadata(s.loc)
		}
	}
	seen := make(map[string]bool, len(commits))
	for _, tc := range commits {
		base, err := c.lookup(tc.Identifier)
		if err != nil {
			cleanup()
			return fmt.Errorf("commit transaction: %w", err)
		}
		name := identString(tc.Identifier)
		if seen[name] {
			cleanup()
			return fmt.Errorf("commit transaction: table %s named twice: %w", name, icecatalog.ErrInvalidIdentifier)
		}
		seen[name] = true
		if base == nil {
			cleanup()
			return fmt.Errorf("commit transaction: table %s: %w", name, icecatalog.ErrNoSuchTable)
		}
		l, err := c.loaded(ctx, tc.Identifier, base)
		if err != nil {
			cleanup()
			return fmt.Errorf("commit transaction: %w", err)
		}
		for _, r := range tc.Requirements {
			if err := r.Validate(l.meta); err != nil {
				cleanup()
				return fmt.Errorf("commit transaction: table %s: %w: %w", name, table.ErrCommitFailed, err)
			}
		}
		if len(tc.Updates) == 0 {
			continue
		}
		next, err := table.UpdateTableMetadata(l.meta, tc.Updates, l.location)
		if err != nil {
			cleanup()
			return fmt.Errorf("commit transaction: table %s: %w", name, refusedUpdates(err))
		}
		if next.Location() != l.meta.Location() {
			if _, err := c.CheckLocation("set-location", next.Location()); err != nil {
				cleanup()
				return fmt.Errorf("commit transaction: table %s: %w", name, err)
			}
		}
		version := metadataVersion(l.location) + 1
		if version <= 0 {
			cleanup()
			return fmt.Errorf("commit transaction: table %s: cannot parse the version of %s", name, l.location)
		}
		mf, err := c.newMetadataFile(next.Location(), next.Properties(), version, nil)
		if err != nil {
			cleanup()
			return fmt.Errorf("commit transaction: table %s: %w", name, err)
		}
		loc := mf.loc
		raw, err := encodeMetadata(next)
		if err != nil {
			cleanup()
			return fmt.Errorf("commit transaction: table %s: encode metadata: %w", name, err)
		}
		file, err := c.writeMetadata(ctx, mf, raw)
		if err != nil {
			cleanup()
			return fmt.Errorf("commit transaction: table %s: %w", name, err)
		}
		files = append(files, nonNil(file)...)
		e := &tableEntry{location: loc}
		nl := newLoaded(tc.Identifier, loc, next, raw, mf.io.f, c)
		e.loaded.Store(nl)
		staged = append(staged, stagedCommit{ident: tc.Identifier, key: keyOf(tc.Identifier), base: base, loc: loc, entry: e, loaded: nl, meta: next})
	}
	if len(staged) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		cleanup()
		return err
	}
	err := c.write(func(tx *bolt.Tx) error {
		tables := tx.Bucket(bucketTables)
		for _, s := range staged {
			cur := tables.Get(s.key)
			switch {
			case cur == nil:
				return fmt.Errorf("table %s: %w: dropped concurrently: %w", identString(s.ident), table.ErrCommitFailed, icecatalog.ErrNoSuchTable)
			case string(cur) != s.base.location:
				return fmt.Errorf("table %s: %w: metadata location moved from %s to %s concurrently",
					identString(s.ident), table.ErrCommitFailed, s.base.location, cur)
			}
		}
		for _, s := range staged {
			if err := c.put(tx, bucketTables, s.key, []byte(s.loc)); err != nil {
				return err
			}
		}
		return nil
	}, func() {
		for _, s := range staged {
			c.tables.set(s.key, s.entry)
		}
	}, files...)
	if err != nil {
		if !errors.Is(err, ErrCommitStateUnknown) {
			cleanup()
		}
		return fmt.Errorf("commit transaction: %w", err)
	}
	for _, s := range staged {
		c.cache.admit(s.entry, s.loaded)
	}
	return nil
}
