package catalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketWAL holds the commit log's checkpoint: key walAppliedKey is the
// seq of the last log record the bbolt file holds (8 bytes, big-endian).
// It is written in the same bbolt transaction as the changes it covers.
var (
	bucketWAL     = []byte("wal")
	walAppliedKey = []byte("applied")
)

// Checkpoint policy of the commit log: a checkpoint commits the groups
// applied since the last one to bbolt (one bbolt commit, with its syncs)
// when this many log bytes were appended since, or this long passed with
// groups pending, whichever comes first. Both bound what a recovery
// replays and how much the log holds.
var (
	checkpointBytes  = uint64(4 << 20)
	checkpointEvery  = time.Second
	checkpointGroups = 8192
)

// put stores val under key in bucket name of a write transaction. While a
// commit step records its ops' changes for the commit log (c.rec, under
// wmu), it records the change, with the key's old value so that the
// change can be taken back out. Every write closure changes bbolt through
// put and del only.
func (c *Catalog) put(tx *bolt.Tx, name, key, val []byte) error {
	b := tx.Bucket(name)
	if b == nil {
		return fmt.Errorf("%w: bucket %s is missing", ErrCorrupt, name)
	}
	if c.rec == nil {
		return b.Put(key, val)
	}
	c.noteNamespaces(name)
	ch := walChange{bucket: name, key: bytes.Clone(key), val: bytes.Clone(val), old: bytes.Clone(b.Get(key))}
	if ch.val == nil {
		ch.val = []byte{}
	}
	if err := b.Put(ch.key, ch.val); err != nil {
		return err
	}
	*c.rec = append(*c.rec, ch)
	return nil
}

// noteNamespaces marks a logged change to bucket name, when it is the
// namespaces bucket, before the change reaches the open transaction (see
// Catalog.nsLogged). Under wmu.
func (c *Catalog) noteNamespaces(name []byte) {
	if bytes.Equal(name, bucketNamespaces) {
		c.nsLogged.Store(true)
	}
}

// del deletes key from bucket name of a write transaction, recording the
// change like put.
func (c *Catalog) del(tx *bolt.Tx, name, key []byte) error {
	b := tx.Bucket(name)
	if b == nil {
		return fmt.Errorf("%w: bucket %s is missing", ErrCorrupt, name)
	}
	if c.rec == nil {
		return b.Delete(key)
	}
	c.noteNamespaces(name)
	old := b.Get(key)
	if old == nil {
		return nil
	}
	ch := walChange{bucket: name, key: bytes.Clone(key), old: bytes.Clone(old)}
	if err := b.Delete(ch.key); err != nil {
		return err
	}
	*c.rec = append(*c.rec, ch)
	return nil
}

// commitBatchLog is the commit step with the commit log on. The batch's
// metadata files are made durable first (as without the log); then, under
// the writer lock, every op is checked and applied to the open bbolt
// transaction (c.ltx) in batch order, each op seeing the ones before it,
// with its changes recorded; an op that fails has its own changes taken
// back and fails alone. The batch's changes are then taken back out of
// the transaction, the lock is released, and they are appended to the
// log as one record and flushed with one fdatasync, with no lock held:
// readers meanwhile see the state before the batch, never a change the
// log does not hold yet. After the flush the changes are applied again,
// the ops published to the in-memory mirror, and the writers
// acknowledged. bbolt is not synced here: the checkpointer commits the
// open transaction in the background.
func (c *Catalog) commitBatchLog(batch []*writeOp) {
	c.stepMu.Lock()
	defer c.stepMu.Unlock()
	if c.closed.Load() {
		failLive(batch, ErrClosed)
		return
	}
	t0 := time.Now()
	c.syncFiles(batch)
	c.flushNS.Add(int64(time.Since(t0)))

	t1 := time.Now()
	c.wmu.Lock()
	if err := c.logUsable(); err != nil {
		c.wmu.Unlock()
		failLive(batch, err)
		return
	}
	// abandon ends the step after an undo failed: the open transaction
	// is rolled back and every op of the batch fails with the log's error.
	abandon := func(err error) {
		c.abandonTx(err)
		c.wmu.Unlock()
		failLive(batch, c.walErr)
	}
	var changes []walChange
	var live []*writeOp
	for _, op := range batch {
		if op.err != nil {
			continue
		}
		var rec []walChange
		c.rec = &rec
		if op.check != nil {
			op.err = op.check(c.ltx)
		}
		if op.err == nil && op.apply != nil {
			op.err = op.apply(c.ltx)
		}
		c.rec = nil
		if op.err != nil {
			if err := undoWALChanges(c.ltx, rec); err != nil {
				abandon(err)
				return
			}
			continue
		}
		changes = append(changes, rec...)
		live = append(live, op)
	}
	if err := undoWALChanges(c.ltx, changes); err != nil {
		abandon(err)
		return
	}
	c.wmu.Unlock()
	t2 := time.Now()
	c.walApplyNS.Add(int64(t2.Sub(t1)))
	if len(live) == 0 {
		return
	}

	c.walBuf = appendWALChanges(c.walBuf[:0], changes)
	seq, err := c.wal.appendSync(c.walBuf)
	t3 := time.Now()
	c.walAppendNS.Add(int64(t3.Sub(t2)))
	if err != nil {
		// A failed append or fdatasync may still have left the record
		// on disk: the writers cannot be told either way, and their
		// files stay (ErrCommitStateUnknown), so that a replay never
		// names a removed file.
		c.wmu.Lock()
		c.failLog(err)
		c.wmu.Unlock()
		failLive(live, fmt.Errorf("%w: commit log: %w", ErrCommitStateUnknown, err))
		return
	}

	// The group is committed: the log holds it. Whatever happens to the
	// open transaction now, the writers are told so and the mirror shows
	// it; a failure only stops later writes until a reopen replays the log.
	c.wmu.Lock()
	defer func() {
		c.wmu.Unlock()
		c.walApplyNS.Add(int64(time.Since(t3)))
	}()
	if c.walErr == nil {
		for _, ch := range changes {
			if err := applyWALChange(c.ltx, ch); err != nil {
				c.failLog(fmt.Errorf("apply logged change: %w", err))
				break
			}
		}
	}
	c.ltxSeq = seq
	c.ltxGroups++
	c.ltxBytes += uint64(walHeaderSize + len(c.walBuf))
	for _, op := range live {
		if op.publish != nil {
			op.publish()
		}
	}
	if c.ltxBytes >= c.ckptBytes || c.ltxGroups >= checkpointGroups {
		c.ckpt.kick()
	}
}

// undoWALChanges takes changes back out of tx, newest first.
func undoWALChanges(tx *bolt.Tx, changes []walChange) error {
	for i := len(changes) - 1; i >= 0; i-- {
		if err := undoWALChange(tx, changes[i]); err != nil {
			return fmt.Errorf("undo change: %w", err)
		}
	}
	return nil
}

// logUsable returns the error that stops the commit log, if any. Under wmu.
func (c *Catalog) logUsable() error {
	if c.closed.Load() {
		return ErrClosed
	}
	return c.walErr
}

// failLog stops every later write with err (the first error is kept): the
// open transaction or the log's end no longer matches what was
// acknowledged, and only a reopen, which replays the log onto the last
// checkpoint, recovers. Under wmu.
func (c *Catalog) failLog(err error) {
	if c.walErr == nil {
		c.walErr = fmt.Errorf("commit log failed, reopen the catalog to recover: %w", err)
	}
}

// abandonTx stops the log with err and rolls back the open transaction,
// which may then hold changes the log does not (an undo that failed):
// later reads and writes get the log's error, and a reopen replays the
// log onto the last checkpoint. Under wmu.
func (c *Catalog) abandonTx(err error) {
	c.failLog(err)
	if c.ltx != nil {
		_ = c.ltx.Rollback()
		c.ltx = nil
	}
}

// checkpointLocked commits the groups applied to the open transaction to
// bbolt, with the seq of the last as the checkpoint, in one bbolt commit
// (synced: bbolt's page writes, then its meta page), and opens the next
// transaction. It returns the checkpointed seq. Under wmu.
func (c *Catalog) checkpointLocked() (uint64, error) {
	if c.walErr != nil {
		return 0, c.walErr
	}
	if c.ltxGroups == 0 {
		return c.ckptSeq, nil
	}
	seq := c.ltxSeq
	if err := putApplied(c.ltx, seq); err != nil {
		c.failLog(err)
		return 0, c.walErr
	}
	t0 := time.Now()
	err := c.ltx.Commit()
	c.checkpointNS.Add(int64(time.Since(t0)))
	c.ltx = nil
	if err != nil {
		c.failLog(fmt.Errorf("checkpoint: %w", err))
		return 0, c.walErr
	}
	c.checkpoints.Add(1)
	c.ckptSeq, c.ltxGroups, c.ltxBytes = seq, 0, 0
	// The bbolt file now holds every change applied so far, namespaces
	// included; a later change sets the flag again under wmu first.
	c.nsLogged.Store(false)
	if c.ltx, err = c.beginWrite(); err != nil {
		c.failLog(fmt.Errorf("begin after checkpoint: %w", err))
		return 0, c.walErr
	}
	return seq, nil
}

// checkpoint runs a checkpoint and removes the log segments it covers.
func (c *Catalog) checkpoint() error {
	c.wmu.Lock()
	if c.closed.Load() {
		c.wmu.Unlock()
		return ErrClosed
	}
	seq, err := c.checkpointLocked()
	c.wmu.Unlock()
	if err != nil {
		return err
	}
	c.wal.dropThrough(seq)
	return nil
}

// putApplied records seq as the last log record tx holds.
func putApplied(tx *bolt.Tx, seq uint64) error {
	b, err := tx.CreateBucketIfNotExists(bucketWAL)
	if err != nil {
		return err
	}
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], seq)
	return b.Put(walAppliedKey, v[:])
}

// appliedSeq is the last log record tx holds (0: none).
func appliedSeq(tx *bolt.Tx) (uint64, error) {
	b := tx.Bucket(bucketWAL)
	if b == nil {
		return 0, nil
	}
	v := b.Get(walAppliedKey)
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: commit log checkpoint of %d bytes", ErrCorrupt, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// checkpointer runs the commit log's checkpoints in the background: when
// kicked (the log grew past checkpointBytes) and every checkpointEvery.
// A checkpoint holds the writer lock for one bbolt commit; the commit
// steps' file and log flushes go on meanwhile.
//
// A checkpointer is safe for concurrent use.
type checkpointer struct {
	run   func() error
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	every time.Duration
}

func newCheckpointer(run func() error, every time.Duration) *checkpointer {
	k := &checkpointer{run: run, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), every: every}
	go k.loop()
	return k
}

// kick asks for a checkpoint soon; it never blocks.
func (k *checkpointer) kick() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

func (k *checkpointer) loop() {
	defer close(k.done)
	t := time.NewTicker(k.every)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-k.wake:
		case <-t.C:
		}
		// An error stopped the log (failLog): every write reports it.
		_ = k.run()
	}
}

// close stops the loop and waits for a checkpoint in progress.
func (k *checkpointer) close() {
	k.once.Do(func() { close(k.stop) })
	<-k.done
}

// startLog starts the commit log in dir after recovery: the open
// transaction from the recovered checkpoint, a new segment for the next
// record, and the checkpointer.
func (c *Catalog) startLog(dir string) error {
	c.ckptBytes = checkpointBytes
	c.ltxSeq, c.ckptSeq = c.recovery.Applied, c.recovery.Applied
	wal, err := createCommitLog(dir, c.recovery.Applied+1)
	if err != nil {
		return err
	}
	if c.ltx, err = c.beginWrite(); err != nil {
		_ = wal.removeAll()
		return fmt.Errorf("commit log: %w", err)
	}
	c.wal = wal
	c.ckpt = newCheckpointer(c.checkpoint, checkpointEvery)
	return nil
}

// closeLog checkpoints everything applied and removes the log, or, when
// that fails, keeps the log for the next Open to replay. Under wmu, with
// the checkpointer stopped and no commit step running.
func (c *Catalog) closeLog() error {
	_, err := c.checkpointLocked()
	if c.ltx != nil {
		_ = c.ltx.Rollback()
		c.ltx = nil
	}
	if err != nil {
		return errors.Join(err, c.wal.close())
	}
	return c.wal.removeAll()
}

// readLog runs fn on the open transaction, which holds every committed
// group (the checkpointed ones and those applied since). A bbolt
// transaction is used by one goroutine at a time, so readers take the
// writer lock, each for the length of fn.
func (c *Catalog) readLog(fn func(tx *bolt.Tx) error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		return ErrClosed
	}
	if c.ltx == nil {
		return c.walErr
	}
	return fn(c.ltx)
}
