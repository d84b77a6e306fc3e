package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// dirTracker knows, in Immediate mode, which directories on a metadata
// file's path may not be durable yet, also when concurrent writers create
// them.
//
// A new directory is durable once its parent has been synced after it was
// created. The writer that creates a directory registers it as pending
// before it creates it, and releases it once the sync step of the batch
// that committed its file returned (see fileSync). Every writer whose path
// runs into a pending directory treats it as new: it syncs the directory's
// parent itself, in its own batch, instead of waiting for the creator (a
// wait could span two batches and deadlock the group committer). A
// directory that exists and is not pending was made durable by an earlier
// sync (or existed when the catalog was opened).
//
// A dirTracker is safe for concurrent use; the zero value is ready.
type dirTracker struct {
	mu      sync.Mutex
	pending map[string]*dirPlan // directory -> the plan that created it
	// known are directories seen to exist and not pending, so durable,
	// with their device: a plan that reaches one stops there without a
	// stat. The catalog never removes a directory; one removed behind its
	// back makes the file's create fail with ErrNotExist, and the writer
	// forgets what is known and plans again (see createNew).
	known map[string]knownDir
}

// knownDir is a durable directory's device (see statDev).
type knownDir struct {
	dev   uint64
	devOK bool
}

// maxKnownDirs bounds dirTracker.known; past it the set starts over.
const maxKnownDirs = 1 << 16

// dirPlan is what one writer must make durable for a new file in a
// directory.
type dirPlan struct {
	t *dirTracker
	// sync lists the directories to sync once the file is written: its own
	// directory and the parent of each directory on the path that is new
	// or pending.
	sync []string
	// created are the directories this writer registered as pending.
	created []string
	// dev is the device of the first durable directory on the path, the
	// file system every directory and the file will be on; devOK says
	// whether dev is known (see statDev).
	dev   uint64
	devOK bool
}

// plan walks up from dir, the directory of a file about to be written,
// registers the directories that do not exist yet as created by the
// caller, and stops at the first directory that exists and is not pending.
//
// A directory neither pending nor known is stat'ed without t.mu held, so
// that concurrent writers do not queue behind one another's stat calls;
// what the stat found is used only after the directory is looked up again
// under t.mu. That is safe because a writer registers a directory as
// pending before it creates it: a directory that exists and is still not
// pending was made durable before, and one registered meanwhile is seen
// as pending.
func (t *dirTracker) plan(dir string) *dirPlan {
	p := &dirPlan{t: t, sync: []string{dir}}
	t.mu.Lock()
	defer t.mu.Unlock()
	for d := dir; ; {
		if _, ok := t.pending[d]; !ok {
			if t.stopAtKnown(p, d) {
				return p
			}
			t.mu.Unlock()
			fi, err := os.Stat(d)
			t.mu.Lock()
			_, pending := t.pending[d]
			switch {
			case pending:
				// Created by a concurrent writer since: new for this one too.
			case t.stopAtKnown(p, d):
				return p
			case !errors.Is(err, fs.ErrNotExist):
				if err == nil {
					p.dev, p.devOK = statDev(fi)
					t.remember(d, knownDir{p.dev, p.devOK})
				}
				return p
			default:
				if t.pending == nil {
					t.pending = make(map[string]*dirPlan)
				}
				t.pending[d] = p
				p.created = append(p.created, d)
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		p.sync = append(p.sync, parent)
		d = parent
	}
}

// stopAtKnown reports whether d is a known durable directory, where a
// plan stops, and if so gives p its device; t.mu is held.
func (t *dirTracker) stopAtKnown(p *dirPlan, d string) bool {
	k, ok := t.known[d]
	if ok {
		p.dev, p.devOK = k.dev, k.devOK
	}
	return ok
}

// release ends the plan. durable says whether the sync step covering the
// plan's file and directories succeeded: only then are the directories it
// created no longer pending. After a failed (or never run) sync they stay
// pending, so every later writer on the path keeps syncing their parents.
// Every plan must be released exactly once.
func (p *dirPlan) release(durable bool) {
	if len(p.created) == 0 || !durable {
		return
	}
	p.t.mu.Lock()
	for _, d := range p.created {
		if p.t.pending[d] == p {
			delete(p.t.pending, d)
			p.t.remember(d, knownDir{p.dev, p.devOK})
		}
	}
	p.t.mu.Unlock()
}

// remember records d as a durable directory; t.mu is held.
func (t *dirTracker) remember(d string, k knownDir) {
	if t.known == nil || len(t.known) >= maxKnownDirs {
		t.known = make(map[string]knownDir)
	}
	t.known[d] = k
}

// forget drops every known directory: the next plans stat again.
func (t *dirTracker) forget() {
	t.mu.Lock()
	t.known = nil
	t.mu.Unlock()
}

// mkdirs creates the directories of p's path that were missing or
// pending when it was planned, outermost first, each with one mkdir (one
// a concurrent writer created already is fine). It stats nothing: the
// plan knows which directories are there.
func (p *dirPlan) mkdirs() error {
	for i := len(p.sync) - 2; i >= 0; i-- {
		if err := os.Mkdir(p.sync[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// createNew creates the new file path, with the directories its path
// lacks, and returns it open for writing with the plan of the
// directories its durability needs (Immediate mode; the caller releases
// the plan, see fileSync). A directory the tracker knew as durable that
// is gone makes it forget what it knew and plan once more, so a directory
// removed behind the catalog's back is created and synced again.
func (t *dirTracker) createNew(path string) (*os.File, *dirPlan, error) {
	for attempt := 0; ; attempt++ {
		plan := t.plan(filepath.Dir(path))
		err := plan.mkdirs()
		var f *os.File
		if err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		}
		if err == nil {
			return f, plan, nil
		}
		plan.release(false)
		if attempt > 0 || !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		t.forget()
	}
}

// dirsToSync returns dir and every ancestor up to and including the first
// one that exists now: after dir's missing parents are created, those are
// the directories whose entries must be fsynced for a new file in dir to
// survive a crash. (Eventual mode; Immediate uses a dirTracker.)
func dirsToSync(dir string) []string {
	dirs := []string{dir}
	for {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			return dirs
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dirs
		}
		dir = parent
		dirs = append(dirs, dir)
	}
}
