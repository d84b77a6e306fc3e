package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"

	"github.com/apache/iceberg-go"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// RegisterTable makes ident point at an existing metadata file, written by
// this or another catalog (the REST "register table" route). The metadata
// file and the table location it names must both pass CheckLocation; the
// file is read and parsed before anything is committed, so a pointer never
// names a missing or unreadable file. The metadata's location properties
// must pass the rule too (see LocationProperties), since later commits and
// writers honour them. A metadata-location that names no metadata file (a
// directory, nothing, a file that does not parse) wraps
// iceberg.ErrInvalidArgument. Nothing is written but the pointer. Errors
// wrap ErrTableAlreadyExists, ErrNoSuchNamespace, ErrInvalidLocation or
// ErrInvalidIdentifier. Safe for concurrent use.
func (c *Catalog) RegisterTable(ctx context.Context, ident table.Identifier, metadataLocation string) (*table.Table, error) {
	e, err := c.lookup(ident)
	if err != nil {
		return nil, fmt.Errorf("register table: %w", err)
	}
	if e != nil {
		return nil, fmt.Errorf("register table %s: %w", identString(ident), icecatalog.ErrTableAlreadyExists)
	}
	loc, err := c.CheckLocation("metadata-location", metadataLocation)
	if err != nil {
		return nil, fmt.Errorf("register table %s: %w", identString(ident), err)
	}
	meta, raw, fsF, err := c.readMetadata(ctx, loc)
	if err != nil {
		if notMetadataFile(err) {
			// The client named something that is no metadata file: a
			// directory, nothing at all, or a file that is not metadata.
			err = fmt.Errorf("metadata-location: %w: %w", iceberg.ErrInvalidArgument, err)
		}
		return nil, fmt.Errorf("register table %s: %w", identString(ident), err)
	}
	if _, _, err := c.metadataDir(meta.Location(), meta.Properties(), nil); err != nil {
		return nil, fmt.Errorf("register table %s: metadata names %w", identString(ident), err)
	}
	entry := &tableEntry{location: loc}
	l := newLoaded(ident, loc, meta, raw, fsF, c)
	entry.loaded.Store(l)
	key := keyOf(ident)
	nsKey := keyOf(ident[:len(ident)-1])
	err = c.write(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketNamespaces).Get(nsKey) == nil {
			return fmt.Errorf("namespace %s: %w", identString(ident[:len(ident)-1]), icecatalog.ErrNoSuchNamespace)
		}
		tables := tx.Bucket(bucketTables)
		if tables.Get(key) != nil {
			return icecatalog.ErrTableAlreadyExists
		}
		if viewPointer(tx, key) != nil {
			return errViewHasName
		}
		return c.put(tx, bucketTables, key, []byte(loc))
	}, func() { c.tables.set(key, entry) })
	if err != nil {
		return nil, fmt.Errorf("register table %s: %w", identString(ident), err)
	}
	c.cache.admit(entry, l)
	return l.table(), nil
}

// notMetadataFile reports whether err, from readMetadata, says that the
// location is no readable metadata file (missing, a directory, not
// metadata JSON), as opposed to a failure of the store.
func notMetadataFile(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, errNotMetadata)
}

// TableLocation is the location CreateTable would give ident without a
// requested one: the namespace's "location" property joined with the table
// name, or <warehouse>/<namespace>/<table>, each part escaped. It is what a
// staged create (REST stage-create) reports before anything is written.
// Errors wrap ErrNoSuchNamespace or ErrInvalidIdentifier.
func (c *Catalog) TableLocation(ctx context.Context, ident table.Identifier) (string, error) {
	if err := validateTableIdent(ident); err != nil {
		return "", fmt.Errorf("table location: %w", err)
	}
	var loc string
	err := c.read(func(tx *bolt.Tx) error {
		props, err := namespaceProps(tx, ident[:len(ident)-1])
		if err != nil {
			return err
		}
		checked, err := c.tableLocation(ident, props)
		loc = checked.loc
		return err
	})
	if err != nil {
		return "", fmt.Errorf("table location %s: %w", identString(ident), err)
	}
	return loc, nil
}

// createFromUpdates builds the metadata of a table created through
// CommitTable (assert-create, the REST staged create) from its updates
// alone, on an empty builder, as the reference implementation does: the
// first schema, spec and sort order the updates add get id 0, so later
// updates of the same commit get the ids the client expects. The format
// version is the one the updates upgrade to (default 2).
func createFromUpdates(updates []table.Update) (table.Metadata, error) {
	fv := 2
	for _, u := range updates {
		if u.Action() != "upgrade-format-version" {
			continue
		}
		var w struct {
			FormatVersion int `json:"format-version"`
		}
		if b, err := json.Marshal(u); err == nil && json.Unmarshal(b, &w) == nil && w.FormatVersion > 0 {
			fv = w.FormatVersion
		}
	}
	hasSchema := false
	for _, u := range updates {
		hasSchema = hasSchema || u.Action() == "add-schema"
	}
	fromEmptyTable := func() (table.Metadata, error) {
		start, err := table.NewMetadata(iceberg.NewSchema(0), nil, table.UnsortedSortOrder, "",
			iceberg.Properties{table.PropertyFormatVersion: strconv.Itoa(fv)})
		if err != nil {
			return nil, err
		}
		return table.UpdateTableMetadata(start, updates, "")
	}
	if !hasSchema {
		return fromEmptyTable()
	}
	b, err := table.NewMetadataBuilder(fv)
	if err != nil {
		return nil, err
	}
	hasUUID := false
	for _, u := range updates {
		if u.Action() == "assign-uuid" {
			hasUUID = true
		}
		if err := u.Apply(b); err != nil {
			return nil, err
		}
	}
	if !hasUUID {
		if err := table.NewAssignUUIDUpdate(uuid.New()).Apply(b); err != nil {
			return nil, err
		}
	}
	meta, err := b.Build()
	if err != nil {
		// The updates do not make a whole table by themselves (no spec or
		// sort order, as some clients send): they apply to an empty,
		// unpartitioned, unsorted table instead.
		return fromEmptyTable()
	}
	return meta, nil
}
