package catalog

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// syncfsMinBatch is the smallest number of files in one commit step that is
// made durable with one syncfs of their file system instead of an fsync of
// every file and directory. A lone write keeps its fsyncs: syncfs flushes
// everything dirty on the file system, other programs' data included, which
// costs a lone writer more than the 2–4 fsyncs it saves (see docs/writes.md).
var syncfsMinBatch = 2

// fileSync is a metadata file written in Immediate mode without fsync. The
// commit step that commits its pointer makes it durable first, together
// with the other files of its batch (see Catalog.syncFiles), so no writer
// pays for its own fsyncs and no pointer reaches bbolt before its file.
//
// A fileSync belongs to its writer; the committer only sets durable and
// err, before it wakes the writer.
type fileSync struct {
	path string   // local path of the file
	plan *dirPlan // the directories whose entries it needs
	// f is the file, still open, when the IO's writer can fsync; nil
	// means the sync step opens path.
	f syncCloser
	// durable is set by the committer once the file and its directories
	// are durable; err says why not.
	durable bool
	err     error
}

// syncCloser is a written file that can be fsynced.
type syncCloser interface {
	Sync() error
	Close() error
}

// release closes f's file and ends its directory plan; the writer calls it
// once its commit returned (or failed before it). A close error is
// ignored: the file was either made durable by then (a local close cannot
// lose what fsync or syncfs wrote) or its pointer was not committed. A nil
// f has nothing to release.
func (f *fileSync) release() {
	if f == nil {
		return
	}
	if f.f != nil {
		_ = f.f.Close()
		f.f = nil
	}
	f.plan.release(f.durable)
}

// nonNil returns f as a list of files: empty when f is nil.
func nonNil(f *fileSync) []*fileSync {
	if f == nil {
		return nil
	}
	return []*fileSync{f}
}

// releaseFiles releases every file in files.
func releaseFiles(files []*fileSync) {
	for _, f := range files {
		f.release()
	}
}

// syncRoots keeps one open directory per file system for syncfs.
//
// A syncRoots is safe for concurrent use; the zero value is ready.
type syncRoots struct {
	mu     sync.Mutex
	roots  map[uint64]*os.File
	bad    map[uint64]bool // no usable root on this device: fsync instead
	closed bool            // after close (a step racing Close): fsync instead
}

// root returns an open directory on device dev, opening dir (a directory
// on that device that exists) the first time. It returns nil when syncfs
// cannot be used for dev.
func (r *syncRoots) root(dev uint64, dir string) *os.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.roots[dev]; f != nil {
		return f
	}
	if r.closed || r.bad[dev] {
		return nil
	}
	f, err := os.Open(dir)
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			if d, ok := statDev(fi); !ok || d != dev {
				err = errors.New("device changed")
			}
		}
		if err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		if r.bad == nil {
			r.bad = make(map[uint64]bool)
		}
		r.bad[dev] = true
		return nil
	}
	if r.roots == nil {
		r.roots = make(map[uint64]*os.File)
	}
	r.roots[dev] = f
	return f
}

// close closes every root.
func (r *syncRoots) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, f := range r.roots {
		errs = append(errs, f.Close())
	}
	r.roots = nil
	r.closed = true
	return errors.Join(errs...)
}

// syncFiles is the durability half of a commit step (Immediate mode): it
// makes every file of the ops in batch durable, with its directories,
// before their pointers are committed, in the catalog's flush mode (see
// Flush). An op whose files cannot be made durable gets the error and must
// not be committed; every other op's files are marked durable. Safe to
// call from any goroutine, one batch at a time per op.
func (c *Catalog) syncFiles(batch []*writeOp) {
	var files []*fileSync
	for _, op := range batch {
		files = append(files, op.files...)
	}
	if len(files) == 0 {
		return
	}
	errs := c.flusher.flush(files)
	c.syncSteps.Add(1)
	var hookErr error
	if c.afterSync != nil {
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.path
		}
		hookErr = c.afterSync(paths)
	}
	for i, f := range files {
		f.err = hookErr
		if f.err == nil {
			f.err = errs[i]
		}
		f.durable = f.err == nil
	}
	for _, op := range batch {
		for _, f := range op.files {
			if f.err != nil {
				op.err = fmt.Errorf("make metadata %s durable: %w", f.path, f.err)
				break
			}
		}
	}
}
