package ring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestSharedLanesKeepTheirOwnResults: many goroutines, each with a lane,
// exchange bytes over their own sockets through one ring; every lane gets
// its own completions back with its own user data and bytes.
func TestSharedLanesKeepTheirOwnResults(t *testing.T) {
	s := newTestShared(t, SharedOptions{Lanes: 64})
	const lanes, rounds = 32, 50
	var wg sync.WaitGroup
	errs := make(chan error, lanes)
	for w := 0; w < lanes; w++ {
		l := newTestLane(t, s)
		fd, peer := socketPair(t)
		go func() { // an echo peer
			buf := make([]byte, 64)
			for {
				n, err := peer.Read(buf)
				if err != nil {
					return
				}
				if _, err := peer.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := make([]byte, 64)
			for i := 0; i < rounds; i++ {
				msg := []byte(fmt.Sprintf("lane %d round %d", w, i))
				sqe, err := l.PrepSend(10+uint64(w), fd, msg, true)
				if err != nil {
					errs <- err
					return
				}
				sqe.Flags |= FlagLink
				if _, err := l.PrepRecv(1000+uint64(w), fd, in[:len(msg)], true); err != nil {
					errs <- err
					return
				}
				cqes, err := l.SubmitAndWait()
				if err != nil {
					errs <- err
					return
				}
				if len(cqes) != 2 || cqes[0].UserData != 10+uint64(w) || cqes[1].UserData != 1000+uint64(w) ||
					int(cqes[0].Res) != len(msg) || int(cqes[1].Res) != len(msg) || !bytes.Equal(in[:len(msg)], msg) {
					errs <- fmt.Errorf("lane %d round %d: cqes %+v, received %q", w, i, cqes, in[:len(msg)])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, want := s.Stats.Reaped.Load(), uint64(lanes*rounds*2); got != want {
		t.Errorf("reaped %d completions, want %d", got, want)
	}
	t.Logf("%d exchanges: %d enters (%d reaper waits, %d self-submits, %d kicks)", lanes*rounds,
		s.r.Stats.Enters.Load(), s.Stats.Waits.Load(), s.Stats.SelfSubmits.Load(), s.Stats.Kicks.Load())
}

// TestSharedBatchesAcrossLanes: operations that 16 lanes publish while the
// reaper is busy are submitted, and their completions reaped, by one
// io_uring_enter.
func TestSharedBatchesAcrossLanes(t *testing.T) {
	const lanes = 16
	var once sync.Once
	hook := func(s *Shared) {
		once.Do(func() {
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				s.mu.Lock()
				n := s.ops
				s.mu.Unlock()
				if n == lanes {
					return
				}
				runtime.Gosched()
			}
		})
	}
	sharedBeforeWait.Store(&hook)
	t.Cleanup(func() { sharedBeforeWait.Store(nil) })
	s := newTestShared(t, SharedOptions{Lanes: lanes})
	var wg sync.WaitGroup
	errs := make(chan error, lanes)
	for w := 0; w < lanes; w++ {
		l := newTestLane(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := l.PrepNop(uint64(w)); err != nil {
				errs <- err
				return
			}
			cqes, err := l.SubmitAndWait()
			if err == nil && (len(cqes) != 1 || cqes[0].UserData != uint64(w) || cqes[0].Res != 0) {
				err = fmt.Errorf("lane %d: cqes %+v", w, cqes)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if e, k, ss := s.r.Stats.Enters.Load(), s.Stats.Kicks.Load(), s.Stats.SelfSubmits.Load(); e != 1 || k != 1 || ss != 0 {
		t.Errorf("%d no-ops of %d lanes took %d enters, %d kicks, %d self-submits; want 1, 1, 0", lanes, lanes, e, k, ss)
	}
}

// TestSharedInterrupt: a lane's receive that no peer answers, linked behind
// a send, is cancelled by Interrupt from another goroutine: SubmitAndWait
// returns ErrInterrupted with nothing of the lane left in flight, later
// submissions fail until ClearInterrupt, and other lanes are untouched.
func TestSharedInterrupt(t *testing.T) {
	s := newTestShared(t, SharedOptions{Lanes: 4})
	l := newTestLane(t, s)
	other := newTestLane(t, s)
	fd, _ := socketPair(t)
	buf := make([]byte, 16)
	sqe, err := l.PrepSend(1, fd, []byte("ping"), true)
	if err != nil {
		t.Fatal(err)
	}
	sqe.Flags |= FlagLink
	if _, err := l.PrepRecv(2, fd, buf, false); err != nil {
		t.Fatal(err)
	}
	done := submitInBackground(l)
	// Interrupt once the send completed and the receive waits.
	waitFor(t, "the receive to be the lane's only op in flight", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return l.flying == 1<<1
	})
	if _, err := other.PrepNop(7); err != nil {
		t.Fatal(err)
	}
	if cqes, err := other.SubmitAndWait(); err != nil || len(cqes) != 1 || cqes[0].UserData != 7 {
		t.Fatalf("another lane beside a waiting receive: %+v, %v", cqes, err)
	}
	l.Interrupt()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("interrupted wait returned %v, want ErrInterrupted", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Interrupt did not end the wait")
	}
	s.mu.Lock()
	left, ops := l.flying|uint8(l.cancels), s.ops
	s.mu.Unlock()
	if left != 0 || ops != 0 {
		t.Fatalf("after the interrupted wait: lane flying/cancels %d, ring ops %d; want none", left, ops)
	}
	if _, err := l.PrepNop(3); err != nil {
		t.Fatal(err)
	}
	if _, err := l.SubmitAndWait(); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("submit after Interrupt: %v, want ErrInterrupted", err)
	}
	l.ClearInterrupt()
	if _, err := l.PrepNop(4); err != nil {
		t.Fatal(err)
	}
	if cqes, err := l.SubmitAndWait(); err != nil || len(cqes) != 1 || cqes[0].UserData != 4 {
		t.Fatalf("submit after ClearInterrupt: %+v, %v", cqes, err)
	}
}

// TestSharedCloseNeedsClosedLanes: a shared ring refuses to close while a
// lane is open, refuses lanes beyond its cap and after Close, and its
// reaper ends with Close.
func TestSharedCloseNeedsClosedLanes(t *testing.T) {
	testenv.Need(t, "io_uring", Probe())
	s, err := NewShared(SharedOptions{Lanes: 1})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.NewLane()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewLane(); !errors.Is(err, ErrBusy) {
		t.Fatalf("a lane beyond the cap: %v, want ErrBusy", err)
	}
	if err := s.Close(); err == nil {
		t.Fatal("Close with a lane open succeeded")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second lane Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reaper did not end with Close")
	}
	if _, err := s.NewLane(); !errors.Is(err, ErrClosed) {
		t.Fatalf("NewLane after Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v, want ErrClosed", err)
	}
}

// TestSharedHoldingReaperLetsTheWorldStop: a reaper allowed to keep its P
// while it waits does not hold up a garbage collection, and gives the P
// back (Release) after each wait it held.
func TestSharedHoldingReaperLetsTheWorldStop(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("a P-holding wait needs a second P to run the collection")
	}
	var mu sync.Mutex
	held, released := 0, 0
	s := newTestShared(t, SharedOptions{Lanes: 2,
		Hold:    func() bool { mu.Lock(); held++; mu.Unlock(); return true },
		Release: func() { mu.Lock(); released++; mu.Unlock() },
	})
	l := newTestLane(t, s)
	_, peer, _ := prepRecvPair(t, l, 4)
	done := submitInBackground(l)
	waitFor(t, "the receive to be submitted", func() bool { return s.r.Stats.Submits.Load() > 0 })
	runtime.GC() // returns only if the stop-the-world got the reaper's P
	if _, err := peer.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end after its receive completed")
	}
	mu.Lock()
	defer mu.Unlock()
	if held == 0 || released != held {
		t.Fatalf("held %d waits, released %d; want at least one, all released", held, released)
	}
}

// BenchmarkHandoff measures the wake-up a lane's owner costs the reaper:
// a ping-pong between two goroutines through a capacity-1 channel per lane
// (what Lane uses) and through a sync.Cond per lane, for comparison.
//
//	go test -run '^$' -bench Handoff -benchtime 200000x ./internal/ring/
func BenchmarkHandoff(b *testing.B) {
	b.Run("chan", func(b *testing.B) {
		ping, pong := make(chan struct{}, 1), make(chan struct{}, 1)
		go func() {
			for range ping {
				pong <- struct{}{}
			}
		}()
		for i := 0; i < b.N; i++ {
			ping <- struct{}{}
			<-pong
		}
		close(ping)
	})
	b.Run("cond", func(b *testing.B) {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		turn, stop := 0, false
		go func() {
			mu.Lock()
			defer mu.Unlock()
			for !stop {
				for turn != 1 && !stop {
					c.Wait()
				}
				turn = 0
				c.Broadcast()
			}
		}()
		for i := 0; i < b.N; i++ {
			mu.Lock()
			turn = 1
			c.Broadcast()
			for turn != 0 {
				c.Wait()
			}
			mu.Unlock()
		}
		mu.Lock()
		stop = true
		c.Broadcast()
		mu.Unlock()
	})
}

// TestSharedFixedFiles: on a ring with a file table, a lane's operations on
// the socket it registered name its slot, the exchange works through the
// slot, and once the slot is released, closing the descriptor closes the
// socket (the peer reads EOF) while the ring stays open.
func TestSharedFixedFiles(t *testing.T) {
	s := newTestShared(t, SharedOptions{Lanes: 4, FixedFiles: true})
	if !s.FixedFiles() {
		t.Fatal("the kernel refused a file table of 4 slots")
	}
	l := newTestLane(t, s)
	fd, peer := ownedSocketPair(t)
	if err := l.UseFile(fd); err != nil {
		t.Fatal(err)
	}
	sqe, err := l.PrepSend(1, fd, []byte("ping"), true)
	if err != nil {
		t.Fatal(err)
	}
	if sqe.Flags&flagFixedFile == 0 || sqe.Fd != int32(l.id) {
		t.Fatalf("send on the registered socket: flags %#x fd %d, want the fixed-file flag and slot %d", sqe.Flags, sqe.Fd, l.id)
	}
	if _, err := l.SubmitAndWait(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(peer, got); err != nil || string(got) != "ping" {
		t.Fatalf("peer read %q, %v", got, err)
	}
	if _, err := peer.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := l.PrepRecv(2, fd, buf, true); err != nil {
		t.Fatal(err)
	}
	if cqes, err := l.SubmitAndWait(); err != nil || cqes[0].Res != 4 || string(buf) != "pong" {
		t.Fatalf("recv through the slot: %+v %v %q", cqes, err, buf)
	}
	if err := l.ReleaseFile(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Close(fd); err != nil {
		t.Fatal(err)
	}
	// Only the file table could still hold the socket open now.
	peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := peer.Read(got); n != 0 || err != io.EOF {
		t.Fatalf("peer read after the release and close: %d bytes, %v; want EOF", n, err)
	}
	if n := s.Stats.FileUpdates.Load(); n != 2 {
		t.Errorf("%d file table updates, want 2 (register, release)", n)
	}
}
