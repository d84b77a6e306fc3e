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
}

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
func (t *dirTracker) plan(dir string) *dirPlan {
	p := &dirPlan{t: t, sync: []string{dir}}
	t.mu.Lock()
	defer t.mu.Unlock()
	for d := dir; ; {
		if _, ok := t.pending[d]; !ok {
			fi, err := os.Stat(d)
			if !errors.Is(err, fs.ErrNotExist) {
				if err == nil {
					p.dev, p.devOK = statDev(fi)
				}
				return p
			}
			if t.pending == nil {
				t.pending = make(map[string]*dirPlan)
			}
			t.pending[d] = p
			p.created = append(p.created, d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		p.sync = append(p.sync, parent)
		d = parent
	}
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
		}
	}
	p.t.mu.Unlock()
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
