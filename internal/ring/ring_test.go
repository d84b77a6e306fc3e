package ring

import (
	"errors"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/testenv"
)

func TestRingSetupFeatures(t *testing.T) {
	r := newTestRing(t, 4)
	sq, cq := r.Entries()
	if sq != 4 || cq != 8 {
		t.Fatalf("entries = %d/%d, want 4/8", sq, cq)
	}
	t.Logf("features %#x single_mmap=%v nodrop=%v ext_arg=%v", r.Features(),
		r.Features()&FeatSingleMmap != 0, r.Features()&FeatNoDrop != 0, r.Features()&FeatExtArg != 0)
}

func TestRingNopRoundTrips(t *testing.T) {
	r := newTestRing(t, 8)
	for round := 0; round < 100; round++ {
		for i := uint64(0); i < 3; i++ {
			if _, err := r.PrepNop(uint64(round)*10 + i); err != nil {
				t.Fatalf("PrepNop: %v", err)
			}
		}
		if err := r.SubmitAndWait(3); err != nil {
			t.Fatalf("SubmitAndWait: %v", err)
		}
		seen := map[uint64]bool{}
		for i := 0; i < 3; i++ {
			cqe, ok := r.PeekCQE()
			if !ok {
				t.Fatalf("round %d: only %d CQEs ready after waiting for 3", round, i)
			}
			if cqe.Res != 0 {
				t.Fatalf("nop res = %d", cqe.Res)
			}
			seen[cqe.UserData] = true
		}
		for i := uint64(0); i < 3; i++ {
			if !seen[uint64(round)*10+i] {
				t.Fatalf("round %d: missing CQE for user data %d (got %v)", round, uint64(round)*10+i, seen)
			}
		}
		if _, ok := r.PeekCQE(); ok {
			t.Fatal("extra CQE")
		}
	}
	if r.InFlight() != 0 {
		t.Fatalf("in flight = %d after reaping everything", r.InFlight())
	}
}

func TestRingFullQueue(t *testing.T) {
	r := newTestRing(t, 4)
	for i := uint64(0); i < 4; i++ {
		if _, err := r.PrepNop(i); err != nil {
			t.Fatalf("PrepNop %d: %v", i, err)
		}
	}
	if _, err := r.PrepNop(99); !errors.Is(err, ErrSQFull) {
		t.Fatalf("5th PrepNop on a 4-entry SQ: err = %v, want ErrSQFull", err)
	}
	// Submitting frees the SQ; the CQ (8) now holds 4 pending completions.
	if err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	for i := uint64(4); i < 8; i++ {
		if _, err := r.PrepNop(i); err != nil {
			t.Fatalf("PrepNop %d after submit: %v", i, err)
		}
	}
	if err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	// 8 completions unreaped = CQ capacity: one more must be refused.
	if _, err := r.PrepNop(100); !errors.Is(err, ErrBusy) {
		t.Fatalf("PrepNop with a full CQ's worth in flight: err = %v, want ErrBusy", err)
	}
	for i := 0; i < 8; i++ {
		if _, err := r.WaitCQE(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.PrepNop(100); err != nil {
		t.Fatalf("PrepNop after reaping: %v", err)
	}
}

func TestRingEINTRRetrySeam(t *testing.T) {
	r := newTestRing(t, 4)
	real := enterFunc
	var calls int
	enterFunc = func(fd int, toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSize uintptr) (int, error) {
		calls++
		if calls <= 3 {
			return 0, unix.EINTR // interrupted before doing anything
		}
		return real(fd, toSubmit, minComplete, flags, arg, argSize)
	}
	t.Cleanup(func() { enterFunc = real })
	if _, err := r.PrepNop(7); err != nil {
		t.Fatal(err)
	}
	cqe, err := r.WaitCQE()
	if err != nil {
		t.Fatalf("WaitCQE through 3 EINTRs: %v", err)
	}
	if cqe.UserData != 7 || cqe.Res != 0 {
		t.Fatalf("cqe = %+v", cqe)
	}
	if r.Stats.EINTR.Load() != 3 {
		t.Fatalf("EINTR retries = %d, want 3", r.Stats.EINTR.Load())
	}
	if _, ok := r.PeekCQE(); ok {
		t.Fatal("the nop was submitted twice")
	}
}

// TestRingEINTRRealSignal blocks a thread in io_uring_enter and pelts it
// with signals; the wait must still return exactly the awaited completion.
func TestRingEINTRRealSignal(t *testing.T) {
	r := newTestRing(t, 4)
	_, peer, buf := prepRecvPair(t, r, 16)
	tid := make(chan int, 1)
	type result struct {
		cqe CQE
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		cqe, err := r.WaitCQE()
		done <- result{cqe, err}
	}()
	target := <-tid
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			unix.Tgkill(unix.Getpid(), target, unix.SIGURG) // Go ignores SIGURG beyond preemption
			time.Sleep(time.Millisecond)
		}
	}()
	// The peer answers only once a signal has interrupted the wait.
	waitFor(t, "a signal interrupting the wait (EINTR)", func() bool { return r.Stats.EINTR.Load() > 0 })
	if _, err := peer.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	res := <-done
	stop.Store(true)
	wg.Wait()
	if res.err != nil {
		t.Fatalf("WaitCQE under signals: %v", res.err)
	}
	if res.cqe.UserData != 1 || res.cqe.Res != 5 || string(buf[:5]) != "hello" {
		t.Fatalf("cqe = %+v buf = %q", res.cqe, buf[:5])
	}
	t.Logf("io_uring_enter calls %d, EINTR retries %d", r.Stats.Enters.Load(), r.Stats.EINTR.Load())
}

func TestRingCloseWhileInFlight(t *testing.T) {
	testenv.Need(t, "io_uring", Probe())
	r, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	fd, peer, buf := prepRecvPair(t, r, 64)
	if err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PrepRecv(2, fd, buf, false); err != nil { // prepared, never submitted
		t.Fatal(err)
	}
	if r.InFlight() != 2 {
		t.Fatalf("in flight = %d, want 2", r.InFlight())
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close with 2 ops in flight: %v", err)
	}
	if r.InFlight() != 0 {
		t.Fatalf("in flight after Close = %d", r.InFlight())
	}
	// The kernel is done with buf: data sent now must not land in it. It
	// reaches our own read of the socket instead, which a receive still
	// in flight would have taken first.
	if _, err := peer.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	if got := readWithin(t, fd, 4, 10*time.Second); string(got) != "late" {
		t.Fatalf("read after Close = %q, want \"late\"", got)
	}
	for _, b := range buf {
		if b != 0 {
			t.Fatalf("buffer written after Close: %q", buf)
		}
	}
	if _, err := r.PrepNop(3); !errors.Is(err, ErrClosed) {
		t.Fatalf("PrepNop on closed ring: %v, want ErrClosed", err)
	}
	if err := r.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v, want ErrClosed", err)
	}
}

func TestRingLinkedTimeoutFires(t *testing.T) {
	r := newTestRing(t, 4)
	fd, _ := socketPair(t) // the peer never writes
	buf := make([]byte, 16)
	sqe, err := r.PrepRecv(1, fd, buf, false)
	if err != nil {
		t.Fatal(err)
	}
	sqe.Flags |= FlagLink
	to := &Timeout{}
	to.Set(int64(50 * time.Millisecond))
	if _, err := r.PrepLinkTimeout(2, to); err != nil {
		t.Fatal(err)
	}
	if err := r.SubmitAndWait(2); err != nil {
		t.Fatal(err)
	}
	got := map[uint64]int32{}
	for i := 0; i < 2; i++ {
		cqe, ok := r.PeekCQE()
		if !ok {
			t.Fatal("missing CQE")
		}
		got[cqe.UserData] = cqe.Res
	}
	if recv := got[1]; recv != -int32(unix.ECANCELED) && recv != -int32(unix.EINTR) {
		t.Fatalf("recv res = %d, want -ECANCELED", recv)
	}
	if lt := got[2]; lt != -int32(unix.ETIME) {
		t.Fatalf("link timeout res = %d, want -ETIME", lt)
	}
}

func TestRingSendRecvAndClose(t *testing.T) {
	r := newTestRing(t, 4)
	fd, peer := socketPair(t)
	msg := []byte("ping")
	sqe, err := r.PrepSend(1, fd, msg, true)
	if err != nil {
		t.Fatal(err)
	}
	sqe.Flags |= FlagLink
	in := make([]byte, 8)
	if _, err := r.PrepRecv(2, fd, in, false); err != nil {
		t.Fatal(err)
	}
	go func() {
		b := make([]byte, 4)
		if _, err := peer.Read(b); err == nil {
			peer.Write([]byte("pong"))
		}
	}()
	if err := r.SubmitAndWait(2); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		cqe, _ := r.PeekCQE()
		if cqe.Res != 4 {
			t.Fatalf("op %d res = %d, want 4", cqe.UserData, cqe.Res)
		}
	}
	if string(in[:4]) != "pong" {
		t.Fatalf("received %q", in[:4])
	}
	dup, err := unix.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.PrepClose(3, dup); err != nil {
		t.Fatal(err)
	}
	cqe, err := r.WaitCQE()
	if err != nil || cqe.Res != 0 {
		t.Fatalf("close: cqe %+v err %v", cqe, err)
	}
	if _, err := unix.FcntlInt(uintptr(dup), unix.F_GETFD, 0); !errors.Is(err, unix.EBADF) {
		t.Fatalf("fd still open after IORING_OP_CLOSE: %v", err)
	}
}

func TestRingAsyncCancel(t *testing.T) {
	r := newTestRing(t, 4)
	prepRecvPair(t, r, 8)
	if err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PrepCancel(2, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.SubmitAndWait(2); err != nil {
		t.Fatal(err)
	}
	got := map[uint64]int32{}
	for i := 0; i < 2; i++ {
		cqe, _ := r.PeekCQE()
		got[cqe.UserData] = cqe.Res
	}
	if got[1] != -int32(unix.ECANCELED) || got[2] != 0 {
		t.Fatalf("recv res %d (want -ECANCELED), cancel res %d (want 0)", got[1], got[2])
	}
}

func TestRingSubmitAndPoll(t *testing.T) {
	r := newTestRing(t, 4)
	fd, peer := socketPair(t)
	for round := 0; round < 3; round++ {
		buf := make([]byte, 8)
		if _, err := r.PrepRecv(1, fd, buf, false); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(20*time.Millisecond, func() { peer.Write([]byte("polled")) })
		if err := r.SubmitAndPoll(1); err != nil {
			t.Fatalf("SubmitAndPoll: %v", err)
		}
		cqe, ok := r.PeekCQE()
		if !ok || cqe.UserData != 1 || cqe.Res != 6 || string(buf[:6]) != "polled" {
			t.Fatalf("round %d: cqe %+v ok %v buf %q", round, cqe, ok, buf)
		}
	}
}

func TestRingInterrupt(t *testing.T) {
	r := newTestRing(t, 4)
	prepRecvPair(t, r, 8) // the peer never writes
	time.AfterFunc(50*time.Millisecond, func() {
		if err := r.Interrupt(); err != nil {
			t.Errorf("Interrupt: %v", err)
		}
	})
	// The owner blocks until the other goroutine's cancel ends the recv.
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatalf("SubmitAndWait: %v", err)
	}
	var recvRes int32
	gotRecv, gotCancel := false, false
	for !gotRecv || !gotCancel {
		cqe, err := r.WaitCQE()
		if errors.Is(err, ErrInterrupted) {
			t.Fatal("WaitCQE with nothing prepared must not fail on interrupt")
		}
		if err != nil {
			t.Fatal(err)
		}
		switch cqe.UserData {
		case 1:
			recvRes, gotRecv = cqe.Res, true
		case InternalUserData:
			gotCancel = true
		}
	}
	if recvRes != -int32(unix.ECANCELED) {
		t.Fatalf("recv res = %d, want -ECANCELED", recvRes)
	}
	if !r.Interrupted() {
		t.Fatal("Interrupted() = false after Interrupt")
	}
	// Until cleared, new submissions are refused and withdrawn.
	if _, err := r.PrepNop(5); err != nil {
		t.Fatal(err)
	}
	if err := r.SubmitAndWait(1); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("submit after Interrupt: %v, want ErrInterrupted", err)
	}
	if r.InFlight() != 0 {
		t.Fatalf("withdrawn op still in flight (%d)", r.InFlight())
	}
	r.ClearInterrupt()
	if _, err := r.PrepNop(6); err != nil {
		t.Fatal(err)
	}
	if cqe, err := r.WaitCQE(); err != nil || cqe.UserData != 6 {
		t.Fatalf("nop after ClearInterrupt: %+v %v", cqe, err)
	}
}

// TestRingInterruptDuringPreparation: an Interrupt that arrives while the
// owner has half-prepared entries must not publish them; the owner's next
// submission withdraws them and cancels what was already in flight.
func TestRingInterruptDuringPreparation(t *testing.T) {
	r := newTestRing(t, 4)
	prepRecvPair(t, r, 8)
	if err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PrepNop(2); err != nil { // being prepared when the interrupt lands
		t.Fatal(err)
	}
	if err := r.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if err := r.SubmitAndWait(1); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("SubmitAndWait after Interrupt: %v, want ErrInterrupted", err)
	}
	got := map[uint64]int32{}
	for r.InFlight() > 0 {
		cqe, err := r.WaitCQE()
		if err != nil {
			t.Fatal(err)
		}
		got[cqe.UserData] = cqe.Res
	}
	if _, ok := got[2]; ok {
		t.Fatal("the withdrawn nop was submitted")
	}
	if got[1] != -int32(unix.ECANCELED) {
		t.Fatalf("in-flight recv res = %d, want -ECANCELED (got %v)", got[1], got)
	}
}

// TestProbeNamesWhatIsMissing: a kernel without an opcode or feature the
// transport needs is refused up front, with the missing names in the
// reason, instead of failing the first request.
func TestProbeNamesWhatIsMissing(t *testing.T) {
	testenv.Need(t, "io_uring", Probe())
	saved := Needed
	t.Cleanup(func() { Needed = saved })
	Needed = Requirement{
		Ops:      append(slices.Clone(saved.Ops), Op{250, "IORING_OP_FROM_THE_FUTURE"}),
		Features: append(slices.Clone(saved.Features), Feature{1 << 31, "IORING_FEAT_FROM_THE_FUTURE"}),
	}
	err := Probe()
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Probe with an unsupported requirement: %v, want ErrUnavailable", err)
	}
	for _, name := range []string{"IORING_OP_FROM_THE_FUTURE", "IORING_FEAT_FROM_THE_FUTURE"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("reason %q does not name %s", err, name)
		}
	}
	for _, op := range saved.Ops {
		if strings.Contains(err.Error(), op.Name) {
			t.Errorf("reason %q names %s, which this kernel supports", err, op.Name)
		}
	}
}

func TestRequirementCheck(t *testing.T) {
	all := make([]bool, 256)
	for _, op := range Needed.Ops {
		all[op.Code] = true
	}
	var feats uint32
	for _, f := range Needed.Features {
		feats |= f.Bit
	}
	noSend := slices.Clone(all)
	noSend[opSend] = false
	tests := []struct {
		name     string
		features uint32
		ops      []bool
		missing  string // "" = supported
	}{
		{"everything", feats, all, ""},
		{"no send", feats, noSend, "IORING_OP_SEND"},
		{"no fast poll", feats &^ FeatFastPoll, all, "IORING_FEAT_FAST_POLL"},
		{"short table (old kernel)", feats, all[:opConnect+1], "IORING_OP_SEND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Needed.check(tc.features, tc.ops)
			if tc.missing == "" {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.missing) {
				t.Fatalf("check: %v, want ErrUnavailable naming %s", err, tc.missing)
			}
		})
	}
}

// TestFailedCloseKeepsKernelMemory: when Close cannot confirm that the
// kernel is done with an operation (its io_uring_enter fails), the buffer
// that operation references must stay reachable, because the kernel may
// still write into it.
func TestFailedCloseKeepsKernelMemory(t *testing.T) {
	testenv.Need(t, "io_uring", Probe())
	r, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	fd, _ := socketPair(t)
	freed := make(chan struct{})
	func() {
		buf := make([]byte, 4096)
		runtime.AddCleanup(&buf[0], func(ch chan struct{}) { close(ch) }, freed)
		if _, err := r.PrepRecv(1, fd, buf, false); err != nil {
			t.Fatal(err)
		}
		if err := r.Submit(); err != nil {
			t.Fatal(err)
		}
	}()
	failing := func(*Ring, uint32) error { return unix.EIO }
	EnterHook.Store(&failing)
	err = r.Close()
	EnterHook.Store(nil)
	if err == nil {
		t.Fatal("Close with a failing io_uring_enter reported success")
	}
	for i := 0; i < 5; i++ {
		runtime.GC()
		select {
		case <-freed:
			t.Fatal("a buffer the kernel may still write was freed after a failed Close")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestInterruptSubmittingOwnersEntries: an Interrupt that lands between the
// owner's publish and its io_uring_enter submits the owner's entries itself;
// the owner's enter then consumes none, which is no error.
func TestInterruptSubmittingOwnersEntries(t *testing.T) {
	for _, wait := range []struct {
		name string
		fn   func(*Ring, uint32) error
	}{{"wait", (*Ring).SubmitAndWait}, {"poll", (*Ring).SubmitAndPoll}} {
		t.Run(wait.name, func(t *testing.T) {
			r := newTestRing(t, 4)
			prepRecvPair(t, r, 8)
			var inHook, fired atomic.Bool
			hook := func(r *Ring, toSubmit uint32) error {
				if toSubmit == 0 || inHook.Load() || fired.Swap(true) {
					return nil
				}
				inHook.Store(true)
				defer inHook.Store(false)
				return r.Interrupt()
			}
			EnterHook.Store(&hook)
			t.Cleanup(func() { EnterHook.Store(nil) })
			if err := wait.fn(r, 1); err != nil && !errors.Is(err, ErrInterrupted) {
				t.Fatalf("wait after a racing Interrupt: %v", err)
			}
			if !fired.Load() {
				t.Fatal("the race was not exercised")
			}
			if err := r.Drain(); err != nil {
				t.Fatalf("Drain: %v", err)
			}
			if n := r.InFlight(); n != 0 {
				t.Fatalf("%d operations still in flight after Drain", n)
			}
		})
	}
}

// TestHoldingWaitLetsTheRuntimeStopTheWorld blocks a goroutine in
// SubmitAndWaitHolding on a receive that stays unanswered for seconds and
// runs a garbage collection meanwhile: the collection's stop-the-world
// must not wait for the receive. It would if io_uring_enter restarted
// after the runtime's preemption signal instead of returning EINTR to the
// retry loop, which is the wait's only preemption point.
func TestHoldingWaitLetsTheRuntimeStopTheWorld(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("a P-holding wait needs a second P to run the collection")
	}
	r := newTestRing(t, 4)
	_, peer, _ := prepRecvPair(t, r, 16)
	done := make(chan error, 1)
	tid := make(chan int, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		done <- r.SubmitAndWaitHolding(1)
	}()
	waitInSyscall(t, <-tid, unix.SYS_IO_URING_ENTER)
	// A collection that waited for the receive would never return: the
	// peer writes only after it. 30 s is far beyond any collection of this
	// test's heap, however busy the machine.
	gcDone := make(chan struct{})
	go func() { runtime.GC(); close(gcDone) }()
	select {
	case <-gcDone:
	case <-time.After(30 * time.Second):
		t.Fatal("a garbage collection did not finish beside a P-holding wait")
	}
	select {
	case err := <-done:
		t.Fatalf("the wait returned before its receive completed: %v", err)
	default:
	}
	if r.Stats.EINTR.Load() == 0 {
		t.Error("the stop-the-world did not interrupt the P-holding wait")
	}
	if _, err := peer.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end after its receive completed")
	}
	cqe, ok := r.PeekCQE()
	if !ok || cqe.UserData != 1 || cqe.Res != 1 {
		t.Fatalf("cqe = %+v, %v; want the 1-byte receive", cqe, ok)
	}
}

// TestSQPollSubmitsWithoutEnter: rings attached to one SQPOLL ring share
// its kernel thread, which picks up what they publish: back-to-back
// submissions complete with no io_uring_enter at all while the thread is
// awake (only a wake-up of a sleeping thread costs one), and a recv on one
// ring and a send on another both complete through it.
func TestSQPollSubmitsWithoutEnter(t *testing.T) {
	testenv.Need(t, "io_uring", Probe())
	anchor, err := NewSQPoll(1, 50*time.Millisecond, nil)
	if err != nil {
		t.Fatalf("NewSQPoll: %v", err)
	}
	defer anchor.Close()
	if _, err := NewSQPoll(4, time.Millisecond, newTestRing(t, 1)); err == nil {
		t.Fatal("attaching to a ring without SQPOLL was accepted")
	}
	a, err := NewSQPoll(8, 50*time.Millisecond, anchor)
	if err != nil {
		t.Fatalf("NewSQPoll attached: %v", err)
	}
	defer a.Close()
	b, err := NewSQPoll(8, 50*time.Millisecond, anchor)
	if err != nil {
		t.Fatalf("NewSQPoll attached: %v", err)
	}
	defer b.Close()
	if !a.SQPoll() || newTestRing(t, 1).SQPoll() {
		t.Fatal("SQPoll() does not tell the rings apart")
	}

	// spin waits for one completion by watching the CQ, never entering.
	spin := func(r *Ring) CQE {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			if cqe, ok := r.PeekCQE(); ok {
				return cqe
			}
			if time.Now().After(deadline) {
				t.Fatal("no completion in 5 s: the kernel thread did not submit")
			}
			runtime.Gosched()
		}
	}
	const n = 200
	for i := range n {
		if _, err := a.PrepNop(uint64(i)); err != nil {
			t.Fatal(err)
		}
		if err := a.Submit(); err != nil {
			t.Fatal(err)
		}
		if cqe := spin(a); cqe.UserData != uint64(i) {
			t.Fatalf("nop %d completed as %d", i, cqe.UserData)
		}
	}
	if e := a.Stats.Enters.Load(); e > 5 {
		t.Fatalf("%d io_uring_enter calls for %d back-to-back nops; want only wake-ups (≤ 5)", e, n)
	}

	fdA, peerA := socketPair(t)
	defer unix.Close(fdA)
	defer peerA.Close()
	fdB, peerB := socketPair(t)
	defer unix.Close(fdB)
	defer peerB.Close()
	buf := make([]byte, 5)
	if _, err := a.PrepRecv(1, fdA, buf, true); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- a.SubmitAndPoll(1) }()
	if _, err := b.PrepSend(2, fdB, []byte("world"), true); err != nil {
		t.Fatal(err)
	}
	if err := b.SubmitAndPoll(1); err != nil {
		t.Fatalf("send: %v", err)
	}
	if cqe, _ := b.PeekCQE(); cqe.Res != 5 {
		t.Fatalf("send completed with %d, want 5", cqe.Res)
	}
	sent := make([]byte, 5)
	peerB.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(peerB, sent); err != nil || string(sent) != "world" {
		t.Fatalf("peer read %q, %v; want \"world\"", sent, err)
	}
	if _, err := peerA.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("recv did not complete in 5 s")
	}
	if cqe, _ := a.PeekCQE(); cqe.Res != 5 || string(buf) != "hello" {
		t.Fatalf("recv completed with %d, %q; want 5, \"hello\"", cqe.Res, buf)
	}
}

// TestRingFsync flushes a written file (fdatasync) and its directory
// (fsync) in one submission and checks that a flush of a closed descriptor
// fails alone, with EBADF.
func TestRingFsync(t *testing.T) {
	if err := FsyncNeeded.Probe(); err != nil {
		t.Fatalf("probe: %v", err)
	}
	r := newTestRing(t, 8)
	dir := t.TempDir()
	f, err := os.Create(dir + "/f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("durable"); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	closed, err := unix.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(closed)
	if _, err := r.PrepFsync(1, int(f.Fd()), FsyncDatasync); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PrepFsync(2, int(d.Fd()), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PrepFsync(3, closed, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.SubmitAndWait(3); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]int32{1: 0, 2: 0, 3: -int32(unix.EBADF)}
	for range 3 {
		cqe, ok := r.PeekCQE()
		if !ok {
			t.Fatal("fewer than 3 CQEs after waiting for 3")
		}
		if w, ok := want[cqe.UserData]; !ok || cqe.Res != w {
			t.Errorf("user data %d: res %d, want %d", cqe.UserData, cqe.Res, w)
		}
		delete(want, cqe.UserData)
	}
	if len(want) != 0 {
		t.Errorf("no CQE for %v", want)
	}
}
