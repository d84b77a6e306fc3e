package catalog

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
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
// one per table — while the next chunk's files are written. The write order of CreateTable holds for every table.
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
	var pending chan chunkResult               // the chunk being committed
	nsProps := map[string]iceberg.Properties{} // namespace key → properties, read once
	for from := 0; from < len(idents); from += BulkChunk {
		chunk := idents[from:min(from+BulkChunk, len(idents))]
		for _, ident := range chunk {
			k := string(keyOf(ident[:len(ident)-1]))
			if _, ok := nsProps[k]; ok {
				continue
			}
			if err := ValidateIdentifier(ident); err != nil {
				return waitPending(created, pending, fmt.Errorf("create table: %w", err))
			}
			p, err := c.namespaceProperties(ident[:len(ident)-1])
			if err != nil {
				return waitPending(created, pending, fmt.Errorf("create table %s: %w", identString(ident), err))
			}
			nsProps[k] = p
		}
		st, err := c.stageChunk(ctx, chunk, sc, nsProps, parallel)
		// The chunk before commits while this one is staged: its sync is
		// I/O wait that the staging's CPU and file writes overlap.
		if pending != nil {
			r := <-pending
			pending = nil
			if r.err != nil {
				discardStaged(st)
				return created, r.err
			}
			created = append(created, r.chunk...)
			if progress != nil {
				progress(len(created))
			}
		}
		if err != nil {
			return created, err
		}
		pending = make(chan chunkResult, 1)
		go func(chunk []table.Identifier, st []*staged, done chan<- chunkResult) {
			done <- chunkResult{chunk, c.commitChunk(ctx, chunk, st)}
		}(chunk, st, pending)
	}
	if pending != nil {
		r := <-pending
		if r.err != nil {
			return created, r.err
		}
		created = append(created, r.chunk...)
		if progress != nil {
			progress(len(created))
		}
	}
	return created, nil
}

// chunkResult is a committed chunk, or why it was not.
type chunkResult struct {
	chunk []table.Identifier
	err   error
}

// waitPending waits for the chunk being committed, if any, and returns
// the tables created with err (and the chunk's error, if it failed).
func waitPending(created []table.Identifier, pending chan chunkResult, err error) ([]table.Identifier, error) {
	if pending != nil {
		r := <-pending
		if r.err != nil {
			return created, errors.Join(r.err, err)
		}
		created = append(created, r.chunk...)
	}
	return created, err
}

// stageChunk writes the metadata files of chunk's tables with parallel
// workers. On any error it removes what it wrote and returns nil.
func (c *Catalog) stageChunk(ctx context.Context, chunk []table.Identifier, sc *iceberg.Schema, nsProps map[string]iceberg.Properties, parallel int) ([]*staged, error) {
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
	if err := errors.Join(errs...); err != nil {
		discardStaged(staged)
		return nil, err
	}
	return staged, nil
}

// discardStaged removes the files of staged tables whose pointers were
// not committed.
func discardStaged(staged []*staged) {
	for _, s := range staged {
		if s != nil {
			s.release()
			s.discard()
		}
	}
}

// commitChunk commits the staged tables of chunk in one batch: all of
// them, or (on any error) none.
func (c *Catalog) commitChunk(ctx context.Context, chunk []table.Identifier, staged []*staged) error {
	if c.closed.Load() {
		discardStaged(staged)
		return ErrClosed
	}
	ops := make([]*writeOp, len(staged))
	for i, s := range staged {
		ops[i] = s.op()
	}
	if c.wal != nil {
		// With the commit log the chunk is one logged group (one record,
		// one flush), each op publishing itself once the log holds it.
		c.commitBatchLog(ops)
	} else {
		c.commitChunkDirect(ops, staged)
	}
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
		return errors.Join(failed...)
	}
	for _, s := range staged {
		s.release()
		c.cache.admit(s.entry, s.loaded)
	}
	return nil
}

// commitChunkDirect commits ops in one bbolt transaction and publishes the
// committed ones to the table index together, in one step.
func (c *Catalog) commitChunkDirect(ops []*writeOp, staged []*staged) {
	for _, op := range ops {
		op.publish = nil // published together below
	}
	c.commitBatchThen(ops, func() {
		var keys [][]byte
		var es []*tableEntry
		for i, op := range ops {
			if op.err == nil {
				keys, es = append(keys, staged[i].key), append(es, staged[i].entry)
			}
		}
		c.tables.setMany(keys, es)
	})
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
	meta, raw, err := c.newTableMetadata(sc, cfg, loc.loc)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	s, err := c.stage(ctx, ident, nil, meta, raw, 0, &loc)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", identString(ident), err)
	}
	return s, nil
}
