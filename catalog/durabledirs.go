package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// dirTracker makes sure that, in Immediate mode, a metadata file is durable
// together with every directory on its path before its pointer commits, also
// when concurrent writers create those directories.
//
// A new directory is durable once its parent has been fsynced after it was
// created. The writer that creates a directory fsyncs its parent; a writer
// that finds a directory already present would skip that, which is only
// right once the creator's fsync has returned. So creators register the
// directories they are about to create as pending, and a writer whose path
// runs into a pending directory waits for its creator before it counts its
// own file as durable.
//
// A dirTracker is safe for concurrent use; the zero value is ready.
type dirTracker struct {
	mu      sync.Mutex
	pending map[string]*dirSync
}

// dirSync is a pending directory: done is closed when the creator's fsyncs
// returned, err says whether they failed.
type dirSync struct {
	done chan struct{}
	err  error
}

// dirPlan is what one writer must do for a new file in a directory.
type dirPlan struct {
	t *dirTracker
	// fsync lists the directories to fsync once the file is written: its own
	// directory and the parent of each directory this writer creates.
	fsync []string
	// created are the directories this writer registered as pending.
	created []string
	mine    []*dirSync
	// others are pending directories of other writers on the path.
	others []*dirSync
}

// plan walks up from dir, the directory of a file about to be written, and
// registers the directories that do not exist yet as created by the caller.
// The walk stops at the first directory that exists or is pending.
func (t *dirTracker) plan(dir string) *dirPlan {
	p := &dirPlan{t: t}
	t.mu.Lock()
	defer t.mu.Unlock()
	for d := dir; ; {
		p.fsync = append(p.fsync, d)
		if s, ok := t.pending[d]; ok {
			p.others = append(p.others, s)
			return p
		}
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		if t.pending == nil {
			t.pending = make(map[string]*dirSync)
		}
		s := &dirSync{done: make(chan struct{})}
		t.pending[d] = s
		p.created = append(p.created, d)
		p.mine = append(p.mine, s)
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		d = parent
	}
}

// wait waits for the other writers' pending directories on the path and
// returns the first error among them.
func (p *dirPlan) wait() error {
	for _, s := range p.others {
		<-s.done
		if s.err != nil {
			return fmt.Errorf("directory created by a concurrent writer: %w", s.err)
		}
	}
	return nil
}

// finish releases this writer's pending directories with err (nil once its
// fsyncs and waits succeeded). Every plan must be finished exactly once.
func (p *dirPlan) finish(err error) {
	if len(p.mine) == 0 {
		return
	}
	p.t.mu.Lock()
	for i, d := range p.created {
		delete(p.t.pending, d)
		p.mine[i].err = err
		close(p.mine[i].done)
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
