package ring

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SubmitAndPoll is SubmitAndWait for callers that should not hold an OS
// thread while they wait: it submits without waiting, then parks the
// goroutine in Go's network poller on the ring's descriptor (readable when
// the CQ is not empty) until want completions are ready.
//
// Why both: a goroutine blocked in io_uring_enter keeps its P until the
// runtime's sysmon retakes it (20 µs to 10 ms later), so when more requests
// wait than there are spare Ps, everything else — an in-process server
// included — stalls behind them. SubmitAndWait is one system call per
// exchange and wins when waiters are few; SubmitAndPoll frees the P and
// wins when they are many. The HTTP transport picks per request.
func (r *Ring) SubmitAndPoll(want uint32) error {
	if err := r.publishFor(want); err != nil {
		return err
	}
	if err := r.submitPending(); err != nil {
		return err
	}
	ready := func() bool { return r.ready() >= want }
	if ready() {
		return nil
	}
	if r.pollFile == nil {
		if err := r.openPollFile(); err != nil {
			return err
		}
	}
	rc, err := r.pollFile.SyscallConn()
	if err != nil {
		return fmt.Errorf("ring: poll ring: %w", err)
	}
	// Completions of socket operations are finished by task work that
	// runs on the submitting thread; the ring can poll readable with that
	// work pending and no CQE posted yet, so a woken waiter that finds
	// nothing ready flushes it with enter(0, 0, GETEVENTS).
	var werr error
	first := true
	err = rc.Read(func(uintptr) bool {
		if ready() {
			return true
		}
		if first { // just checked above; nothing can have woken us yet
			first = false
			return false
		}
		if _, werr = r.enter(0, 0, enterGetEvents); werr != nil {
			return true
		}
		return ready()
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("ring: poll ring: %w", err)
	}
	return nil
}

// openPollFile registers a duplicate of the ring descriptor with Go's
// network poller. The duplicate shares the open file, so O_NONBLOCK applies
// to the ring too; io_uring_enter ignores it.
func (r *Ring) openPollFile() error {
	dup, err := unix.Dup(r.fd)
	if err != nil {
		return fmt.Errorf("ring: dup ring fd: %w", err)
	}
	unix.CloseOnExec(dup)
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return fmt.Errorf("ring: nonblock ring fd: %w", err)
	}
	r.pollFile = os.NewFile(uintptr(dup), "io_uring")
	return nil
}
