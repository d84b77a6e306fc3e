package catalog

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	bolt "go.etcd.io/bbolt"
)

// BulkChunk is how many tables CreateTables commits in one step: one
// syncfs (or set of fsyncs) for their metadata files and one bbolt
// transaction for their pointers.
const BulkChunk = 2000

// CreateTables creates every table of idents with schema sc, as
// CreateTable would with no options, for loading a catalog with many
// tables at once (a benchmark's setup, a restore). It writes the
// metadata files with parallel workers (at least 1) and commits them in
// chunks of BulkChunk: each chunk's files are made durable as the
// catalog's mode promises, then its pointers are committed in one bbolt
// transaction — so a chunk costs the syncs one CreateTable costs, not
// one per table. The write order of CreateTable holds for every table.
//
// It returns the tables it created, in idents' order, and stops at the
// first error (a table that exists, a missing namespace, a cancelled
// ctx): the tables created before it stay, the failing chunk's others
// are not created and their files are removed. progress, when not nil,
// is called after each chunk with the tables created so far.
//
// Safe for concurrent use with every other method.
func (c *Catalog) CreateTables(ctx context.Context, idents []table.Identifier, sc *iceberg.Schema, parallel int, progress func(done int)) ([]table.Identifier, error) {
	if sc == nil {
		return nil, fmt.Errorf("create tables: nil schema: %w", iceberg.ErrInvalidArgument)
	}
	parallel = max(1, parallel)
	var created []table.Identifier
	nsProps := map[string]iceberg.Properties{} // namespace key → properties, read once
	for from := 0; from < len(idents); from += BulkChunk {
		chunk := idents[from:min(from+BulkChunk, len(idents))]
		for _, ident := range chunk {
			k := string(keyOf(ident[:len(ident)-1]))
			if _, ok := nsProps[k]; ok {
				continue
			}
			if err := ValidateIdentifier(ident); err != nil {
				return created, fmt.Errorf("create table: %w", err)
			}
			var p iceberg.Properties
			if err := c.read(func(tx *bolt.Tx) (err error) {
				p, err = namespaceProps(tx, ident[:len(ident)-1])
				return err
			}); err != nil {
				return created, fmt.Errorf("create table %s: %w", identString(ident), err)
			}
			nsProps[k] = p
		}
		n, err := c.createChunk(ctx, chunk, sc, nsProps, parallel)
		created = append(created, chunk[:n]...)
		if err != nil {
			return created, err
		}
		if progress != nil {
			progress(len(created))
		}
	}
	return created, nil
}

// createChunk stages chunk's tables with parallel workers and commits
// them in one batch. It returns how many of chunk, from its start, were
// created: all of them, or none when any failed.
func (c *Catalog) createChunk(ctx context.Context, chunk []table.Identifier, sc *iceberg.Schema, nsProps map[string]iceberg.Properties, parallel int) (int, error) {
	staged := make([]*staged, len(chunk))
	errs := make([]error, len(chunk))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(parallel, len(chunk)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				staged[i], errs[i] = c.stageNew(ctx, chunk[i], sc, nsProps[string(keyOf(chunk[i][:len(chunk[i])-1]))])
			}
		}()
	}
	for i := range chunk {
		next <- i
	}
	close(next)
	wg.Wait()
	discardAll := func() {
		for _, s := range staged {
			if s != nil {
				s.release()
				s.discard()
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		discardAll()
		return 0, err
	}
	if c.closed.Load() {
		discardAll()
		return 0, ErrClosed
	}
	ops := make([]*writeOp, len(staged))
	for i, s := range staged {
		ops[i] = s.op()
	}
	c.commitBatch(ops)
	var failed []error
	for i, op := range ops {
		if op.err != nil {
			failed = append(failed, fmt.Errorf("create table %s: %w", identString(chunk[i]), op.err))
		}
	}
	if failed != nil {
		// Some pointers may have committed beside the failures: a chunk is
		// all or nothing for the caller, so drop what did commit.
		for i, op := range ops {
			staged[i].release()
			if op.err == nil {
				_ = c.DropTable(context.WithoutCancel(ctx), chunk[i])
			} else {
				staged[i].discard()
			}
		}
		return 0, errors.Join(failed...)
	}
	for _, s := range staged {
		s.release()
		c.cache.admit(s.entry, s.loaded)
	}
	return len(chunk), nil
}

// stageNew writes the first metadata file of the new table ident.
func (c *Catalog) stageNew(ctx context.Context, ident table.Identifier, sc *iceberg.Schema, nsProps iceberg.Properties) (*staged, error) {
	if e, err := c.lookup(ident); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	} else if e != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), icecatalog.ErrTableAlreadyExists)
	}
	loc, err := c.tableLocation(ident, nsProps)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	cfg := icecatalog.NewCreateTableCfg()
	meta, err := table.NewMetadata(sc, cfg.PartitionSpec, cfg.SortOrder, loc, cfg.Properties)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	s, err := c.stage(ctx, ident, nil, meta, 0)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	return s, nil
}
