package ring

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/testenv"
)

// The setup the ring tests share: rings, shared rings and lanes closed at
// cleanup, loopback socket pairs, a receive prepared on one, and polling
// with a deadline.

// newTestRing returns a ring closed at cleanup, or skips (fails in CI) when
// io_uring is unavailable here.
func newTestRing(t *testing.T, entries uint32) *Ring {
	t.Helper()
	testenv.Need(t, "io_uring", Probe())
	r, err := New(entries)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	closeAtCleanup(t, "ring", r.Close)
	return r
}

// newTestShared returns a shared ring closed at cleanup (after its lanes),
// or skips (fails in CI) when io_uring is unavailable here.
func newTestShared(t *testing.T, opts SharedOptions) *Shared {
	t.Helper()
	testenv.Need(t, "io_uring", Probe())
	s, err := NewShared(opts)
	if err != nil {
		t.Fatalf("NewShared: %v", err)
	}
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			t.Error("the reaper still runs after Close")
		}
	})
	closeAtCleanup(t, "shared ring", s.Close) // runs before the check above
	return s
}

// newTestLane returns a lane of s closed at cleanup.
func newTestLane(t *testing.T, s *Shared) *Lane {
	t.Helper()
	l, err := s.NewLane()
	if err != nil {
		t.Fatalf("NewLane: %v", err)
	}
	closeAtCleanup(t, "lane", l.Close)
	return l
}

// closeAtCleanup closes what at cleanup; closing something a test closed
// itself is fine.
func closeAtCleanup(t *testing.T, what string, close func() error) {
	t.Cleanup(func() {
		if err := close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("%s Close: %v", what, err)
		}
	})
}

// socketPair returns a connected TCP socket pair on loopback as raw
// descriptors: a is ours (for the ring), b the peer's net.Conn. Both
// close at cleanup.
func socketPair(t *testing.T) (int, net.Conn) {
	t.Helper()
	fd, peer := ownedSocketPair(t)
	t.Cleanup(func() { unix.Close(fd) })
	return fd, peer
}

// ownedSocketPair is socketPair whose descriptor the test closes itself.
func ownedSocketPair(t *testing.T) (int, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	f, err := client.(*net.TCPConn).File() // dup'd, blocking descriptor
	client.Close()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	return fd, peer
}

// recvPreparer is a Ring or a Lane.
type recvPreparer interface {
	PrepRecv(userData uint64, fd int, p []byte, waitAll bool) (*SQE, error)
}

// prepRecvPair connects a socket pair and prepares on r a receive of up to
// n bytes from it, with user data 1: what the peer writes lands in buf.
func prepRecvPair(t *testing.T, r recvPreparer, n int) (fd int, peer net.Conn, buf []byte) {
	t.Helper()
	fd, peer = socketPair(t)
	buf = make([]byte, n)
	if _, err := r.PrepRecv(1, fd, buf, false); err != nil {
		t.Fatal(err)
	}
	return fd, peer, buf
}

// submitInBackground runs the lane's SubmitAndWait on another goroutine
// and delivers its error.
func submitInBackground(l *Lane) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := l.SubmitAndWait()
		done <- err
	}()
	return done
}

// waitInSyscall polls until thread tid of this process is blocked in
// system call nr (as /proc/self/task/TID/syscall reports it); after 10 s
// the test fails.
func waitInSyscall(t *testing.T, tid int, nr uintptr) {
	t.Helper()
	path := fmt.Sprintf("/proc/self/task/%d/syscall", tid)
	want := strconv.FormatUint(uint64(nr), 10)
	waitFor(t, "thread "+strconv.Itoa(tid)+" blocked in system call "+want, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		f := strings.Fields(string(b))
		return len(f) > 0 && f[0] == want
	})
}

// readWithin reads up to n bytes from fd, failing the test when none
// arrive within d.
func readWithin(t *testing.T, fd, n int, d time.Duration) []byte {
	t.Helper()
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	ready, err := unix.Poll(pfd, int(d/time.Millisecond))
	for errors.Is(err, unix.EINTR) { // the runtime's preemption signal
		ready, err = unix.Poll(pfd, int(d/time.Millisecond))
	}
	if err != nil || ready == 0 {
		t.Fatalf("nothing to read on fd %d within %s (poll: %d, %v)", fd, d, ready, err)
	}
	buf := make([]byte, n)
	got, err := unix.Read(fd, buf)
	if err != nil {
		t.Fatalf("read fd %d: %v", fd, err)
	}
	return buf[:got]
}

// waitFor polls cond, yielding between polls, until it holds; after 10 s
// the test fails with what it waited for.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
		runtime.Gosched()
	}
}
