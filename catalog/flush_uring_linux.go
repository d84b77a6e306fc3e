package catalog

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"

	"github.com/nordisk/katbench/internal/ring"
)

// uringEntries is the flush ring's submission queue size: a batch with
// more flushes is submitted in chunks of this many, one wait each.
const uringEntries = 256

// uringFlusher issues a batch's flushes through one io_uring.
//
// No flush of a batch has to end before another starts: the write
// protocol only needs every file and directory of the batch durable
// before the batch's bbolt transaction, and flush returns only once every
// completion was reaped. So the entries are neither linked nor drained,
// and the kernel runs them concurrently; a failed flush fails only the
// files that depend on it.
//
// A uringFlusher is safe for concurrent use; batches are flushed one at
// a time.
type uringFlusher struct {
	mu     sync.Mutex
	r      *ring.Ring
	size   int
	broken error // a submission failed half-way: the ring's state is unknown
}

func newUringFlusher() (*uringFlusher, error) {
	if err := ring.FsyncNeeded.Probe(); err != nil {
		return nil, err
	}
	r, err := ring.New(uringEntries)
	if err != nil {
		return nil, err
	}
	sq, _ := r.Entries()
	return &uringFlusher{r: r, size: int(sq)}, nil
}

func (u *uringFlusher) close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.r.Close()
}

// fder is a file with a descriptor (*os.File).
type fder interface{ Fd() uintptr }

// flush runs tasks (no syncfs roots among them) and sets each one's err.
func (u *uringFlusher) flush(tasks []*flushTask) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for len(tasks) > 0 {
		n := min(len(tasks), u.size)
		u.flushChunk(tasks[:n])
		tasks = tasks[n:]
	}
}

func (u *uringFlusher) flushChunk(tasks []*flushTask) {
	fds := make([]int, len(tasks))
	var opened []*os.File
	var keep []syncCloser
	defer func() {
		for _, f := range opened {
			_ = f.Close()
		}
		runtime.KeepAlive(keep)
	}()
	var queued uint32
	for i, t := range tasks {
		fds[i] = -1
		if u.broken != nil {
			t.err = u.broken
			continue
		}
		if fd, ok := t.file.(fder); ok && t.file != nil {
			fds[i] = int(fd.Fd())
			keep = append(keep, t.file)
		} else {
			f, err := os.Open(t.path)
			if err != nil {
				t.err = fmt.Errorf("fsync %s: %w", t.path, err)
				continue
			}
			opened = append(opened, f)
			fds[i] = int(f.Fd())
		}
		var flags uint32
		if !t.dir {
			// A new file's size and blocks are what fdatasync keeps; its
			// directory entry is the directory's fsync.
			flags = ring.FsyncDatasync
		}
		if _, err := u.r.PrepFsync(uint64(i), fds[i], flags); err != nil {
			t.err = fmt.Errorf("fsync %s: io_uring: %w", t.path, err)
			u.broken = err
			continue
		}
		queued++
	}
	if queued == 0 {
		return
	}
	if err := u.r.SubmitAndWait(queued); err != nil {
		u.broken = fmt.Errorf("io_uring flush: %w", err)
		for _, t := range tasks {
			if t.err == nil {
				t.err = u.broken
			}
		}
		return
	}
	seen := make([]bool, len(tasks))
	for range queued {
		cqe, ok := u.r.PeekCQE()
		if !ok || cqe.UserData >= uint64(len(tasks)) || seen[cqe.UserData] {
			u.broken = errors.New("io_uring flush: completions do not match the submission")
			break
		}
		seen[cqe.UserData] = true
		if cqe.Res < 0 {
			t := tasks[cqe.UserData]
			t.err = fmt.Errorf("fsync %s: %w", t.path, syscall.Errno(-cqe.Res))
		}
	}
	for i, t := range tasks {
		if t.err == nil && !seen[i] {
			t.err = u.broken
		}
	}
}
