package catalog

import (
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// writeOp is one writer's change to bbolt. Ops from concurrent writers are
// committed together, in one bbolt transaction, by the group committer.
//
// An op must have no side effects outside the transaction in check and
// apply: both may run more than once (see Catalog.commitBatch), and an op
// that is not committed must leave nothing behind.
type writeOp struct {
	// check validates the change against tx and must not modify tx. An error
	// rejects this op alone: its writer gets the error, the rest of the
	// batch goes on in the same transaction. May be nil.
	check func(tx *bolt.Tx) error
	// apply makes the change; it may validate too. After an error from apply
	// tx may hold part of the change, so the batch's transaction is rolled
	// back and run again without this op, and this op's writer gets the
	// error. May be nil.
	apply func(tx *bolt.Tx) error
	// publish runs after the transaction that holds the change committed,
	// in batch order, before any later batch starts and before the writer
	// is told: it keeps the in-memory mirror in bbolt's commit order. May be
	// nil.
	publish func()
	// files are the metadata files the change points to that are not
	// durable yet (Immediate mode): the committer makes them durable
	// before it commits the change, and fails the op if it cannot.
	files []*fileSync
	// record is what a FileFloor writes for the op in its batch's record
	// write (the stand-in for the pointer); the catalog ignores it.
	record []byte

	// Set by the committing goroutine before wake is signalled.
	err  error
	done bool
	// wake tells a waiting writer that its op finished (done) or that it is
	// now the leader.
	wake chan struct{}
}

// groupCommitter batches writeOps from concurrent writers into shared bbolt
// transactions, without any timer: a writer that finds no commit running
// commits at once (a lone writer waits for nobody), and writers that arrive
// while a commit runs queue up and are committed together by the next
// leader as soon as it finishes. So a batch is exactly what arrived during
// one commit's flush, and throughput grows with the number of writers while
// the single-writer path costs one uncontended mutex more than before.
//
// Leadership passes in arrival order: the leader commits one batch, then
// hands over to the first writer that queued during it, so no writer commits
// other writers' batches for long.
//
// A groupCommitter is safe for concurrent use.
type groupCommitter struct {
	// commit commits a batch, setting every op's err.
	commit func(batch []*writeOp)

	mu      sync.Mutex
	queue   []*writeOp
	leading bool // a writer is committing, or has been handed the lead

	batches atomic.Uint64 // committed batches (statistics)
	ops     atomic.Uint64 // ops in them (statistics)
}

// submit commits op, alone or together with concurrent ops, and returns its
// result once its batch committed (or was rejected) and published.
func (g *groupCommitter) submit(op *writeOp) error {
	op.wake = make(chan struct{}, 1)
	g.mu.Lock()
	g.queue = append(g.queue, op)
	if g.leading {
		g.mu.Unlock()
		<-op.wake
		if op.done {
			return op.err
		}
		// Handed the lead: op is still queued and commits in this batch.
	} else {
		g.leading = true
		g.mu.Unlock()
	}

	g.mu.Lock()
	batch := g.queue
	g.queue = nil
	g.mu.Unlock()

	g.commit(batch)
	g.batches.Add(1)
	g.ops.Add(uint64(len(batch)))
	for _, o := range batch {
		o.done = true
		if o != op {
			o.wake <- struct{}{}
		}
	}

	g.mu.Lock()
	if len(g.queue) > 0 {
		next := g.queue[0]
		g.mu.Unlock()
		next.wake <- struct{}{}
	} else {
		g.leading = false
		g.mu.Unlock()
	}
	return op.err
}

// commitBatch is the group committer's commit step: one bbolt write
// transaction for the whole batch, then the publishes, all under the writer
// lock. Ops rejected by check fail alone; an op whose apply fails is dropped
// and the transaction rerun without it, so no other op is failed by it (the
// rerun is in memory: nothing reaches the disk before Commit). If Begin or
// Commit fails every op still in the batch gets that error.
//
// Before the transaction, the batch's metadata files are made durable in
// one step (syncFiles); an op whose files could not be is failed and left
// out, so no pointer is committed before its file is durable.
func (c *Catalog) commitBatch(batch []*writeOp) { c.commitBatchThen(batch, nil) }

// commitBatchThen is commitBatch running after, when the transaction
// committed, under the writer lock right after the ops' publishes (the
// bulk path publishes its whole batch there at once).
func (c *Catalog) commitBatchThen(batch []*writeOp, after func()) {
	if c.closed.Load() {
		for _, op := range batch {
			op.err = ErrClosed
		}
		return
	}
	t0 := time.Now()
	c.syncFiles(batch)
	c.flushNS.Add(int64(time.Since(t0)))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		for _, op := range batch {
			op.err = ErrClosed
		}
		return
	}
	live := batch
	for _, op := range batch {
		if op.err != nil {
			live = without(live, op)
		}
	}
	if len(live) == 0 {
		return
	}
	for {
		for _, op := range live {
			op.err = nil
		}
		tx, err := c.beginWrite()
		if err != nil {
			for _, op := range live {
				op.err = err
			}
			return
		}
		var failed *writeOp
		for _, op := range live {
			if op.check != nil {
				if op.err = op.check(tx); op.err != nil {
					continue
				}
			}
			if op.apply != nil {
				if op.err = op.apply(tx); op.err != nil {
					failed = op
					break
				}
			}
		}
		if failed != nil {
			_ = tx.Rollback()
			live = without(live, failed)
			continue
		}
		if !anyOK(live) {
			_ = tx.Rollback() // every op rejected: nothing to flush
			return
		}
		t1 := time.Now()
		err = tx.Commit()
		c.bboltNS.Add(int64(time.Since(t1)))
		if err != nil {
			for _, op := range live {
				if op.err == nil {
					op.err = err
				}
			}
			return
		}
		for _, op := range live {
			if op.err == nil && op.publish != nil {
				op.publish()
			}
		}
		if after != nil {
			after()
		}
		c.ahead.after(c.db)
		return
	}
}

// anyOK reports whether some op in ops has no error.
func anyOK(ops []*writeOp) bool {
	for _, op := range ops {
		if op.err == nil {
			return true
		}
	}
	return false
}

// without returns ops without op, in a new slice.
func without(ops []*writeOp, op *writeOp) []*writeOp {
	out := make([]*writeOp, 0, len(ops)-1)
	for _, o := range ops {
		if o != op {
			out = append(out, o)
		}
	}
	return out
}
