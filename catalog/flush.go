package catalog

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Flush says how a commit step makes its batch's metadata files and new
// directories durable in Immediate mode, before the batch's bbolt
// transaction. Every mode gives the same guarantee (see the package
// documentation); they differ in what else they flush and in how the
// flushes are issued. bbolt's own fsyncs of its commit are bbolt's in
// every mode.
type Flush string

const (
	// FlushSyncfs fsyncs a lone file and its new directories in parallel
	// and takes one syncfs(2) per file system for a batch of two or more
	// files. syncfs also flushes whatever else is dirty on that file
	// system, other programs' data included. The default.
	FlushSyncfs Flush = "syncfs"
	// FlushFsync fsyncs every file and new directory of the batch, each in
	// a goroutine of its own (so on a thread of the runtime's pool), and
	// waits for all of them: only the catalog's own files are flushed.
	FlushFsync Flush = "fsync"
	// FlushUring issues the batch's flushes as one io_uring submission
	// (IORING_OP_FSYNC: fdatasync of each file, fsync of each directory)
	// and reaps them in one wait: only the catalog's own files are
	// flushed, without a thread per flush. Open fails when io_uring
	// cannot be used.
	FlushUring Flush = "uring"
)

// Flushes lists the flush modes, the default first.
var Flushes = []Flush{FlushSyncfs, FlushFsync, FlushUring}

// ErrInvalidFlush is returned by ParseFlush for an unknown mode.
var ErrInvalidFlush = errors.New("invalid flush mode")

// ParseFlush parses a flush mode name, ignoring case and surrounding
// space. The empty string means FlushSyncfs. An unknown name returns an
// error wrapping ErrInvalidFlush that lists the valid names.
func ParseFlush(s string) (Flush, error) {
	switch f := Flush(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return FlushSyncfs, nil
	case FlushSyncfs, FlushFsync, FlushUring:
		return f, nil
	}
	return "", fmt.Errorf("%w %q: want one of syncfs, fsync, uring", ErrInvalidFlush, s)
}

// String returns the mode's name.
func (f Flush) String() string { return string(f) }

// flusher makes batches of written files durable in one mode. The
// catalog and the file-system floor (see FileFloor) each own one.
//
// A flusher is safe for concurrent use once set up; flush is called by
// one commit step at a time, but need not be.
type flusher struct {
	mode  Flush
	roots syncRoots
	ring  *uringFlusher // FlushUring only
}

// newFlusher sets up a flusher in mode; it opens a ring for FlushUring.
func newFlusher(mode Flush) (*flusher, error) {
	fl := &flusher{mode: mode}
	if mode == FlushUring {
		r, err := newUringFlusher()
		if err != nil {
			return nil, fmt.Errorf("flush mode %s: %w", mode, err)
		}
		fl.ring = r
	}
	return fl, nil
}

// close releases the flusher's roots and ring.
func (fl *flusher) close() error {
	err := fl.roots.close()
	if fl.ring != nil {
		err = errors.Join(err, fl.ring.close())
	}
	return err
}

// flushTask is one flush of a batch: a distinct file or directory path,
// or a file system's syncfs root.
type flushTask struct {
	path string
	file syncCloser // the written file, still open: flush it instead of opening path
	dir  bool       // path is a directory (fsync); a file takes fdatasync where the mode can
	root *os.File   // syncfs this file system
	err  error
}

// flush makes every file of files durable, with the directories of its
// plan, and returns each file's error (nil: durable). When it returns,
// every flush it issued has ended. Safe to call from any goroutine.
func (fl *flusher) flush(files []*fileSync) []error {
	errs := make([]error, len(files))
	if len(files) == 0 {
		return errs
	}
	var tasks []*flushTask
	byKey := make(map[any]*flushTask)
	add := func(key any, t *flushTask) *flushTask {
		if old := byKey[key]; old != nil {
			return old
		}
		byKey[key] = t
		tasks = append(tasks, t)
		return t
	}
	deps := make([][]*flushTask, len(files))
	for i, f := range files {
		if fl.mode == FlushSyncfs && len(files) >= syncfsMinBatch && f.plan.devOK {
			if root := fl.roots.root(f.plan.dev, f.plan.sync[0]); root != nil {
				deps[i] = []*flushTask{add(f.plan.dev, &flushTask{root: root})}
				continue
			}
		}
		deps[i] = append(deps[i], add(f.path, &flushTask{path: f.path, file: f.f}))
		for _, d := range f.plan.sync {
			deps[i] = append(deps[i], add(d, &flushTask{path: d, dir: true}))
		}
	}
	if fl.mode == FlushUring {
		fl.ring.flush(tasks)
	} else {
		runParallel(tasks)
	}
	for i := range files {
		for _, t := range deps[i] {
			if errs[i] == nil {
				errs[i] = t.err
			}
		}
	}
	return errs
}

// runParallel runs every task, all but the first in goroutines of their
// own, and returns when all ended.
func runParallel(tasks []*flushTask) {
	run := func(t *flushTask) {
		switch {
		case t.root != nil:
			if err := syncfs(t.root); err != nil {
				t.err = fmt.Errorf("syncfs %s: %w", t.root.Name(), err)
			}
		case t.file != nil:
			if err := t.file.Sync(); err != nil {
				t.err = fmt.Errorf("fsync %s: %w", t.path, err)
			}
		default:
			t.err = fsyncPath(t.path)
		}
	}
	if len(tasks) == 1 {
		run(tasks[0])
		return
	}
	var wg sync.WaitGroup
	for _, t := range tasks[1:] {
		wg.Go(func() { run(t) })
	}
	run(tasks[0])
	wg.Wait()
}

// CommitBatches returns how many commit steps the group committer ran and
// how many writes they held (ops ÷ batches is the mean batch size).
func (c *Catalog) CommitBatches() (batches, ops uint64) {
	return c.gc.batches.Load(), c.gc.ops.Load()
}

// LogStepTimes returns the wall time the commit steps of the commit log
// spent so far appending and fdatasyncing their records (appendSync) and
// under the writer lock, waiting for it included (apply: checking,
// applying, taking back, re-applying and publishing their ops). Both are
// zero without the commit log. Safe for concurrent use.
func (c *Catalog) LogStepTimes() (appendSync, apply time.Duration) {
	return time.Duration(c.walAppendNS.Load()), time.Duration(c.walApplyNS.Load())
}

// CommitStepTimes returns the wall time the group committer's steps spent
// so far making their batches' files durable (flush, in the catalog's
// flush mode; zero outside Immediate mode) and in bbolt's Commit (its page
// writes and, in Immediate mode, its two fdatasyncs; zero with the
// commit log, whose steps commit nothing to bbolt). Steps run one at a
// time, so each sum divided by a run's wall time is the share of the run
// that part of the commit path took. Safe for concurrent use.
func (c *Catalog) CommitStepTimes() (flush, bbolt time.Duration) {
	return time.Duration(c.flushNS.Load()), time.Duration(c.bboltNS.Load())
}
