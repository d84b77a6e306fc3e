package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// floorLogSize is the size of a FileFloor's record file, written once when the
// floor opens so that a record write never changes the file's size.
const floorLogSize = 1 << 20

// floorPage is the unit a FileFloor's record write is rounded up to, bbolt's
// page size on the common 4 KiB-page systems.
const floorPage = 4096

// FileFloor is the file-system floor of Immediate mode's writes: the same file
// work as a durable create or commit — the new directories, a metadata
// file of the given bytes, and a write standing in for bbolt's — made
// durable the cheapest correct way for each batch, with no catalog logic
// (no bbolt, no parsing, no checks, no in-memory mirror). Concurrent
// writes are batched exactly as the catalog batches them (the same group
// committer: a batch is what arrived during one step), and a batch is
// made durable in the FileFloor's flush mode, the same code the catalog's
// commit step uses, in the same order: first every file and new
// directory, then the batch's records in one write of whole pages to a
// preallocated file and one fdatasync of it (a log needs one flush where
// bbolt's commit takes two: its pages, then its meta page).
//
// A FileFloor is safe for concurrent use.
type FileFloor struct {
	dirs    dirTracker
	flusher *flusher
	gc      groupCommitter

	// The record file; off is where the next batch's records go (the
	// file is reused from the start when a batch would run past its end).
	// Only the committing writer touches them.
	log *os.File
	off int64

	steps atomic.Uint64 // batches whose records were written
	// flushNS and recordNS add up the wall time batches spent making their
	// files durable and writing and fdatasyncing their records.
	flushNS, recordNS atomic.Int64
	closed            atomic.Bool
	once              sync.Once
}

// OpenFileFloor opens a floor writing its record file in dir and flushing in
// mode flush ("" is FlushSyncfs).
func OpenFileFloor(dir string, flush Flush) (*FileFloor, error) {
	mode, err := ParseFlush(string(flush))
	if err != nil {
		return nil, fmt.Errorf("open floor: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open floor: %w", err)
	}
	path := filepath.Join(dir, "floor.log")
	log, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open floor: %w", err)
	}
	if _, err := log.WriteAt(make([]byte, floorLogSize), 0); err == nil {
		err = log.Sync()
	}
	if err == nil {
		err = fsyncPath(dir)
	}
	if err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("open floor: preallocate %s: %w", path, err)
	}
	fl, err := newFlusher(mode)
	if err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("open floor: %w", err)
	}
	f := &FileFloor{flusher: fl, log: log}
	f.gc.commit = f.commitBatch
	return f, nil
}

// FlushMode is the floor's flush mode.
func (f *FileFloor) FlushMode() Flush { return f.flusher.mode }

// CommitBatches returns how many batches the floor committed and how many
// writes they held.
func (f *FileFloor) CommitBatches() (batches, ops uint64) {
	return f.gc.batches.Load(), f.gc.ops.Load()
}

// StepTimes returns the wall time the floor's batches spent so far making
// their files durable (flush) and writing and fdatasyncing their records
// (record). Batches run one at a time, so each sum divided by a run's
// wall time is that part's share of the run. Safe for concurrent use.
func (f *FileFloor) StepTimes() (flush, record time.Duration) {
	return time.Duration(f.flushNS.Load()), time.Duration(f.recordNS.Load())
}

// Write creates the directories up to path's, writes data to path (a new
// file), and returns once the file, the new directories and record (the
// stand-in for the catalog's pointer) are durable, together with the
// batch of concurrent writes it joined. On an error nothing of it is
// durable as far as the caller may assume.
func (f *FileFloor) Write(path string, data, record []byte) (err error) {
	if f.closed.Load() {
		return ErrClosed
	}
	file, plan, err := f.dirs.createNew(path)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	fsy := &fileSync{path: path, plan: plan, f: file}
	defer fsy.release()
	if _, err := file.Write(data); err != nil {
		return fmt.Errorf("floor: write %s: %w", path, err)
	}
	return f.gc.submit(&writeOp{files: []*fileSync{fsy}, record: record})
}

// commitBatch makes the batch's files durable, then writes and flushes the
// records of the ops whose files are.
func (f *FileFloor) commitBatch(batch []*writeOp) {
	if f.closed.Load() {
		for _, op := range batch {
			op.err = ErrClosed
		}
		return
	}
	var files []*fileSync
	for _, op := range batch {
		files = append(files, op.files...)
	}
	t0 := time.Now()
	errs := f.flusher.flush(files)
	f.flushNS.Add(int64(time.Since(t0)))
	var n int
	for i, file := range files {
		file.err = errs[i]
		file.durable = file.err == nil
	}
	var recs []byte
	for _, op := range batch {
		for _, file := range op.files {
			if file.err != nil {
				op.err = fmt.Errorf("floor: make %s durable: %w", file.path, file.err)
				break
			}
		}
		if op.err == nil {
			recs = append(recs, op.record...)
			n++
		}
	}
	if n == 0 {
		return
	}
	size := (int64(len(recs)) + floorPage - 1) / floorPage * floorPage
	if size > floorLogSize {
		err := fmt.Errorf("floor: a batch's records (%d bytes) exceed the record file", len(recs))
		failLive(batch, err)
		return
	}
	if f.off+size > floorLogSize {
		f.off = 0
	}
	t1 := time.Now()
	defer func() { f.recordNS.Add(int64(time.Since(t1))) }()
	buf := make([]byte, size)
	copy(buf, recs)
	if _, err := f.log.WriteAt(buf, f.off); err != nil {
		failLive(batch, fmt.Errorf("floor: write records: %w", err))
		return
	}
	if err := fdatasync(f.log); err != nil {
		failLive(batch, fmt.Errorf("floor: fdatasync records: %w", err))
		return
	}
	f.off += size
	f.steps.Add(1)
}

// failLive gives err to every op of batch that has none.
func failLive(batch []*writeOp, err error) {
	for _, op := range batch {
		if op.err == nil {
			op.err = err
		}
	}
}

// Close closes the record file and the flusher. Writes after Close fail
// with ErrClosed; Close waits for no write in flight, so call it after
// the writers returned.
func (f *FileFloor) Close() error {
	var err error
	f.once.Do(func() {
		f.closed.Store(true)
		err = errors.Join(f.log.Close(), f.flusher.close())
	})
	return err
}
