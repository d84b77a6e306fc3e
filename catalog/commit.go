package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// CommitTable checks reqs against ident's current metadata, applies updates
// with iceberg-go's table.UpdateTableMetadata, writes the result as the next
// metadata version and swings the pointer to it.
//
// It is atomic per table: the pointer is swung only if, inside the bbolt
// write transaction, it still names the metadata the requirements were
// checked against. A failed requirement or a lost race returns an error
// wrapping table.ErrCommitFailed and changes nothing, so of two commits made
// from the same base exactly one wins and no update is lost. Commits to one
// table through this Catalog take turns (see commitLocks): each checks its
// requirements against the metadata its predecessor left, so a loser fails
// before it writes anything.
//
// A commit to a table that does not exist creates it when reqs contain
// table.AssertCreate (the REST "stage create" path); without it the error
// wraps ErrNoSuchTable. A commit without updates, or whose updates change nothing, writes
// nothing and returns the current metadata.
func (c *Catalog) CommitTable(ctx context.Context, ident table.Identifier, reqs []table.Requirement, updates []table.Update) (table.Metadata, string, error) {
	if _, err := c.lookup(ident); err != nil {
		return nil, "", fmt.Errorf("commit table: %w", err)
	}
	unlock, err := c.commits.lock(ctx, keyOf(ident))
	if err != nil {
		return nil, "", fmt.Errorf("commit table %s: %w", identString(ident), err)
	}
	defer unlock()
	base, err := c.lookup(ident)
	if err != nil {
		return nil, "", fmt.Errorf("commit table: %w", err)
	}
	var (
		cur     table.Metadata
		curLoc  string
		version int
	)
	if base != nil {
		l, err := c.loaded(ctx, ident, base)
		if err != nil {
			return nil, "", fmt.Errorf("commit table %s: %w", identString(ident), err)
		}
		cur, curLoc = l.meta, l.location
		if version = metadataVersion(curLoc) + 1; version <= 0 {
			return nil, "", fmt.Errorf("commit table %s: cannot parse the version of metadata file %s", identString(ident), curLoc)
		}
	} else if !hasAssertCreate(reqs) {
		return nil, "", fmt.Errorf("commit table %s: %w", identString(ident), icecatalog.ErrNoSuchTable)
	}

	for _, r := range reqs {
		if err := r.Validate(cur); err != nil {
			return nil, "", fmt.Errorf("commit table %s: %w: %w", identString(ident), table.ErrCommitFailed, err)
		}
	}

	if cur != nil && len(updates) == 0 {
		return cur, curLoc, nil
	}
	var next table.Metadata
	if cur == nil {
		next, err = createFromUpdates(updates)
	} else {
		next, err = table.UpdateTableMetadata(cur, updates, curLoc)
	}
	if err != nil {
		return nil, "", fmt.Errorf("commit table %s: %w", identString(ident), refusedUpdates(err))
	}
	if cur != nil && next.Equals(cur) {
		return cur, curLoc, nil
	}
	if base == nil && next.Location() == "" {
		return nil, "", fmt.Errorf("commit table %s: creating a table needs a set-location update: %w",
			identString(ident), iceberg.ErrInvalidArgument)
	}
	if cur == nil || next.Location() != cur.Location() {
		if _, err := c.CheckLocation("set-location", next.Location()); err != nil {
			return nil, "", fmt.Errorf("commit table %s: %w", identString(ident), err)
		}
	}

	t, err := c.install(ctx, ident, base, next, nil, version, nil)
	if err != nil {
		return nil, "", fmt.Errorf("commit table %s: %w", identString(ident), err)
	}
	return t.Metadata(), t.MetadataLocation(), nil
}

// refusedUpdates marks an error from applying a client's updates to table
// metadata (in memory: nothing was read or written) as the client's invalid
// input, so that no front answers it as a server fault. An error that
// already says what it is keeps its meaning.
func refusedUpdates(err error) error {
	if errors.Is(err, iceberg.ErrInvalidArgument) || errors.Is(err, iceberg.ErrNotImplemented) ||
		errors.Is(err, table.ErrCommitFailed) {
		return err
	}
	return fmt.Errorf("%w: %w", iceberg.ErrInvalidArgument, err)
}

func hasAssertCreate(reqs []table.Requirement) bool {
	for _, r := range reqs {
		if r.GetType() == "assert-create" {
			return true
		}
	}
	return false
}
