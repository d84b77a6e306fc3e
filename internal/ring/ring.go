package ring

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Ring is one io_uring instance: a submission queue (SQ), a completion queue
// (CQ) and the kernel file descriptor behind them.
//
// Concurrency: a Ring has one owner goroutine at a time, which prepares,
// submits, waits and reaps (the HTTP transport gives each connection its own
// ring, used by the goroutine running the request). The single exception is
// Interrupt, which any goroutine may call at any time, even concurrently
// with the owner blocked in a wait or with Close; an internal mutex orders
// the two.
//
// Memory handed to the kernel (buffers, socket addresses, timespecs) is
// referenced from the SQE by a plain integer address, which the Go garbage
// collector cannot see. The Prep methods therefore pin that memory with a
// runtime.Pinner and record a pointer to it in the ring's in-flight table
// until the matching CQE is reaped (or Close has cancelled and reaped it):
// pinned, it cannot move, and referenced from the heap-resident table it
// stays reachable, so it is neither freed nor reused while the kernel may
// touch it. If Close cannot confirm that the kernel is done (an
// io_uring_enter fails), that memory is kept reachable, and pinned, for the
// life of the process rather than risk the kernel writing into reused
// memory.
type Ring struct {
	fd       int
	features uint32
	sqSize   uint32
	cqSize   uint32

	sqMem, cqMem, sqeMem []byte // cqMem aliases sqMem under FeatSingleMmap

	sqHead, sqTail *uint32 // kernel advances head; we advance tail
	sqMask         uint32
	sqes           unsafe.Pointer // [sqSize]SQE

	cqHead, cqTail *uint32 // we advance head; kernel advances tail
	cqMask         uint32
	cqes           unsafe.Pointer // [cqSize]CQE

	// sqpoll: a kernel thread consumes published SQEs (NewSQPoll), so a
	// submission costs a system call only when that thread sleeps
	// (sqFlags has sqNeedWakeup).
	sqpoll  bool
	sqFlags *uint32

	pollFile *os.File // the ring fd in Go's poller; nil until SubmitAndPoll

	mu          sync.Mutex   // guards everything below against Interrupt
	sqeTail     uint32       // next SQE index handed out (not yet published)
	pubTail     uint32       // SQE tail last published to the kernel
	inflight    []inflightOp // prepared or submitted, CQE not reaped yet
	closed      bool
	interrupted bool

	// Stats counts ring events for tests and diagnostics.
	Stats Stats
}

// Stats counts what a Ring did. Safe to read at any time.
type Stats struct {
	Enters  atomic.Uint64 // io_uring_enter calls
	EINTR   atomic.Uint64 // io_uring_enter calls retried after EINTR
	Reaped  atomic.Uint64 // CQEs consumed
	Submits atomic.Uint64 // SQEs the kernel consumed
}

// inflightOp is one operation whose CQE has not been reaped. keep holds the
// memory the kernel may access until then (nil if none).
type inflightOp struct {
	userData uint64
	keep     unsafe.Pointer
	pin      runtime.Pinner // pins keep; Unpin on reap
	seq      uint32         // SQE index; published once seq < Ring.pubTail
	internal bool           // a cancel issued by Close or Interrupt; never itself cancelled
}

// enterFunc is the io_uring_enter system call. It is a variable only so a
// test can inject EINTR deterministically.
var enterFunc = func(fd int, toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSize uintptr) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit),
		uintptr(minComplete), uintptr(flags), uintptr(arg), argSize)
	return enterResult(n, errno)
}

// rawEnterFunc is enterFunc as a raw system call, for SubmitAndWaitHolding.
// A variable for the same reason.
var rawEnterFunc = func(fd int, toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSize uintptr) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit),
		uintptr(minComplete), uintptr(flags), uintptr(arg), argSize)
	return enterResult(n, errno)
}

// enterResult turns io_uring_enter's return into Go's (n, error) form.
func enterResult(n uintptr, errno unix.Errno) (int, error) {
	if errno != 0 {
		return int(n), errno
	}
	return int(n), nil
}

// EnterHook, when set, runs before every io_uring_enter with the ring and
// the number of entries about to be submitted; a non-nil error is returned
// in place of the system call's. Tests use it to make races deterministic
// and to inject failures; it costs one atomic load per enter otherwise.
var EnterHook atomic.Pointer[func(r *Ring, toSubmit uint32) error]

// abandoned holds the in-flight tables of rings whose Close could not
// confirm the kernel was done with them, and the lanes of shared rings that
// failed: their memory stays reachable and pinned for the life of the
// process.
var abandoned struct {
	mu    sync.Mutex
	ops   [][]inflightOp
	lanes []*Lane // lanes of a shared ring that died with operations in flight
}

// New sets up a ring with at least entries SQ slots (rounded up to a power
// of two by the kernel) and a CQ twice that size. An error wraps
// ErrUnavailable when io_uring itself cannot be used here.
func New(entries uint32) (*Ring, error) {
	return setup(entries, params{flags: setupClamp | setupCQSize})
}

// NewSQPoll is New for a ring whose submissions a kernel thread picks up
// (IORING_SETUP_SQPOLL): publishing an SQE costs no system call while that
// thread is awake, and it sleeps after idle (at least 1 ms) without work.
// With share, the ring is served by share's thread (IORING_SETUP_ATTACH_WQ)
// instead of starting its own, so any number of rings cost one thread;
// share must be an SQPOLL ring of this process and stay open meanwhile.
//
// Waiting still takes an io_uring_enter (or the poller, SubmitAndPoll).
func NewSQPoll(entries uint32, idle time.Duration, share *Ring) (*Ring, error) {
	p := params{flags: setupClamp | setupCQSize | setupSQPoll, sqThreadIdle: uint32(max(idle.Milliseconds(), 1))}
	if share != nil {
		if !share.sqpoll {
			return nil, fmt.Errorf("ring: share: not an SQPOLL ring")
		}
		p.flags |= setupAttachWQ
		p.wqFd = uint32(share.fd)
	}
	r, err := setup(entries, p)
	if err != nil {
		return nil, err
	}
	r.sqpoll = true
	return r, nil
}

// setup is io_uring_setup with p (entries SQ slots, a CQ twice that size)
// and the mappings.
func setup(entries uint32, p params) (*Ring, error) {
	if entries == 0 {
		return nil, fmt.Errorf("ring: ring needs at least 1 entry")
	}
	p.cqEntries = 2 * entries
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, setupError(errno)
	}
	r := &Ring{fd: int(fd), features: p.features, sqSize: p.sqEntries, cqSize: p.cqEntries}
	if err := r.mmap(&p); err != nil {
		r.unmap()
		unix.Close(r.fd)
		return nil, err
	}
	return r, nil
}

// setupError turns an io_uring_setup errno into an error, wrapping
// ErrUnavailable for the errnos that mean "not here, not now, not for you".
func setupError(errno unix.Errno) error {
	switch errno {
	case unix.ENOSYS, unix.EPERM, unix.EACCES:
		reason := errno.Error()
		if disabled := disabledSysctl(); disabled != "" {
			reason += " (" + disabled + ")"
		}
		return fmt.Errorf("%w: io_uring_setup: %s", ErrUnavailable, reason)
	}
	return fmt.Errorf("ring: io_uring_setup: %w", errno)
}

func (r *Ring) mmap(p *params) error {
	sqLen := uintptr(p.sqOff.array) + uintptr(p.sqEntries)*4
	cqLen := uintptr(p.cqOff.cqes) + uintptr(p.cqEntries)*unsafe.Sizeof(CQE{})
	single := p.features&FeatSingleMmap != 0
	if single && cqLen > sqLen {
		sqLen = cqLen
	}
	var err error
	r.sqMem, err = unix.Mmap(r.fd, offSQRing, int(sqLen), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("ring: mmap SQ ring: %w", err)
	}
	if single {
		r.cqMem = r.sqMem
	} else {
		r.cqMem, err = unix.Mmap(r.fd, offCQRing, int(cqLen), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
		if err != nil {
			return fmt.Errorf("ring: mmap CQ ring: %w", err)
		}
	}
	r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(uintptr(p.sqEntries)*unsafe.Sizeof(SQE{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("ring: mmap SQEs: %w", err)
	}
	sq := unsafe.Pointer(&r.sqMem[0])
	cq := unsafe.Pointer(&r.cqMem[0])
	r.sqHead = (*uint32)(unsafe.Add(sq, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(sq, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(sq, p.sqOff.ringMask))
	r.sqFlags = (*uint32)(unsafe.Add(sq, p.sqOff.flags))
	r.sqes = unsafe.Pointer(&r.sqeMem[0])
	r.cqHead = (*uint32)(unsafe.Add(cq, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(cq, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(cq, p.cqOff.ringMask))
	r.cqes = unsafe.Add(cq, p.cqOff.cqes)
	// The SQ array maps ring slots to SQE indexes. We always use slot i for
	// SQE i, so it is filled once here and never touched again.
	array := unsafe.Add(sq, p.sqOff.array)
	for i := uint32(0); i < p.sqEntries; i++ {
		*(*uint32)(unsafe.Add(array, uintptr(i)*4)) = i
	}
	return nil
}

func (r *Ring) unmap() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
		r.sqeMem = nil
	}
	if r.cqMem != nil && (r.sqMem == nil || &r.cqMem[0] != &r.sqMem[0]) {
		unix.Munmap(r.cqMem)
	}
	r.cqMem = nil
	if r.sqMem != nil {
		unix.Munmap(r.sqMem)
		r.sqMem = nil
	}
}

// Features returns the IORING_FEAT_* bits the kernel reported.
func (r *Ring) Features() uint32 { return r.features }

// Entries returns the SQ and CQ sizes the kernel granted.
func (r *Ring) Entries() (sq, cq uint32) { return r.sqSize, r.cqSize }

// InFlight returns how many operations are prepared or submitted and whose
// completion has not been reaped.
func (r *Ring) InFlight() int { return len(r.inflight) }

// prepare hands out the next free SQE, zeroed, and records the operation as
// in flight with keep as the memory to hold for the kernel.
func (r *Ring) prepare(userData uint64, keep unsafe.Pointer) (*SQE, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prepareLocked(userData, keep)
}

func (r *Ring) prepareLocked(userData uint64, keep unsafe.Pointer) (*SQE, error) {
	if r.closed {
		return nil, ErrClosed
	}
	if r.sqeTail-atomic.LoadUint32(r.sqHead) >= r.sqSize {
		return nil, ErrSQFull
	}
	if uint32(len(r.inflight)) >= r.cqSize {
		return nil, ErrBusy
	}
	sqe := (*SQE)(unsafe.Add(r.sqes, uintptr(r.sqeTail&r.sqMask)*unsafe.Sizeof(SQE{})))
	*sqe = SQE{UserData: userData}
	r.inflight = append(r.inflight, inflightOp{userData: userData, keep: keep, seq: r.sqeTail})
	if keep != nil {
		r.inflight[len(r.inflight)-1].pin.Pin(keep)
	}
	r.sqeTail++
	return sqe, nil
}

// publishLocked makes every prepared SQE visible to the kernel and returns
// how many the kernel has not consumed yet. After an Interrupt it withdraws
// the unpublished SQEs instead and fails with ErrInterrupted.
func (r *Ring) publishLocked() (uint32, error) {
	if r.closed {
		return 0, ErrClosed
	}
	if r.interrupted && r.sqeTail != r.pubTail {
		// Withdraw what was prepared after the interruption.
		kept := r.inflight[:0]
		for _, op := range r.inflight {
			if int32(op.seq-r.pubTail) < 0 {
				kept = append(kept, op)
			} else {
				op.pin.Unpin() // never reached the kernel
			}
		}
		clear(r.inflight[len(kept):])
		r.inflight = kept
		r.sqeTail = r.pubTail
		// Interrupt could not cancel what was already in flight while
		// these entries were half-prepared; with the SQ clean again, the
		// owner does it now.
		if err := r.cancelAndSubmitLocked(); err != nil {
			return 0, err
		}
		return 0, ErrInterrupted
	}
	// Release store: the SQE contents written before must be visible to the
	// kernel once it observes the new tail.
	atomic.StoreUint32(r.sqTail, r.sqeTail)
	r.pubTail = r.sqeTail
	return r.sqeTail - atomic.LoadUint32(r.sqHead), nil
}

// pending returns how many published SQEs the kernel has not consumed.
// It reads only the shared ring indexes, so it needs no lock.
func (r *Ring) pending() uint32 {
	return atomic.LoadUint32(r.sqTail) - atomic.LoadUint32(r.sqHead)
}

// Submit hands every prepared SQE to the kernel without waiting.
func (r *Ring) Submit() error {
	r.mu.Lock()
	_, err := r.publishLocked()
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return r.submitPending()
}

// submitPending hands the kernel every published entry it has not consumed.
// The count is recomputed from the shared ring indexes right before each
// enter: an Interrupt on another goroutine may have submitted some or all
// of them in between (it submits everything published, in order), and an
// enter that then consumes none is no error.
func (r *Ring) submitPending() error {
	if r.sqpoll {
		// The kernel thread takes them; enter only to wake it. (The
		// atomic store that published the tail is a full barrier, so this
		// load cannot miss a thread that went to sleep before it.)
		if r.pending() > 0 && r.needWakeup() {
			_, err := r.enter(0, 0, 0)
			return err
		}
		return nil
	}
	for {
		pending := r.pending()
		if pending == 0 {
			return nil
		}
		n, err := r.enter(pending, 0, 0)
		if err != nil {
			return err
		}
		if n == 0 && r.pending() == pending {
			return fmt.Errorf("ring: io_uring_enter consumed none of %d entries", pending)
		}
	}
}

// SubmitAndWait hands every prepared SQE to the kernel and blocks until at
// least want completions are ready to reap, all in as few io_uring_enter
// calls as possible (one, normally). Interrupted calls (EINTR) are retried.
func (r *Ring) SubmitAndWait(want uint32) error { return r.submitAndWait(want, false) }

// SubmitAndWaitHolding is SubmitAndWait without telling the Go scheduler
// that the thread is in a system call (a raw io_uring_enter): the
// goroutine keeps its P while the kernel waits, so no other thread is
// woken to take the P over and none spins looking for work when the wait
// ends. That saves the scheduler's futex and nanosleep calls around every
// blocking wait, but the P runs nothing else meanwhile and a stop-the-world
// waits for the wait to end or be interrupted by the runtime's preemption
// signal (io_uring_enter returns EINTR; the retry is a preemption point).
// Callers must keep at least one P free of such waits.
func (r *Ring) SubmitAndWaitHolding(want uint32) error { return r.submitAndWait(want, true) }

func (r *Ring) submitAndWait(want uint32, hold bool) error {
	if err := r.publishFor(want); err != nil {
		return err
	}
	for {
		// Both counts are re-read before every enter (see submitPending).
		pending := r.pending()
		if (pending == 0 || r.sqpoll) && r.ready() >= want {
			return nil
		}
		if _, err := r.enterMode(pending, want, enterGetEvents, hold); err != nil {
			return err
		}
	}
}

// publishFor makes the staged entries visible to the kernel before a wait
// for want completions, refusing a wait that could never return (more
// completions than operations in flight).
func (r *Ring) publishFor(want uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.inflight); want > uint32(n) {
		return fmt.Errorf("ring: wait for %d completions with %d in flight would never return", want, n)
	}
	_, err := r.publishLocked()
	return err
}

// needWakeup reports whether the SQPOLL thread sleeps.
func (r *Ring) needWakeup() bool { return atomic.LoadUint32(r.sqFlags)&sqNeedWakeup != 0 }

// SQPoll reports whether a kernel thread submits for this ring (NewSQPoll).
func (r *Ring) SQPoll() bool { return r.sqpoll }

// ready returns how many completions wait to be reaped.
func (r *Ring) ready() uint32 {
	return atomic.LoadUint32(r.cqTail) - atomic.LoadUint32(r.cqHead)
}

// enter is one io_uring_enter call, retried on EINTR. On EINTR the loop
// callers recompute what is still to submit from the kernel's SQ head, so
// nothing is submitted twice.
func (r *Ring) enter(toSubmit, minComplete, flags uint32) (int, error) {
	return r.enterMode(toSubmit, minComplete, flags, false)
}

// enterMode is enter, through rawEnterFunc when hold is set.
func (r *Ring) enterMode(toSubmit, minComplete, flags uint32, hold bool) (int, error) {
	call := enterFunc
	if hold {
		call = rawEnterFunc
	}
	for {
		if r.sqpoll {
			// The kernel ignores toSubmit here: its thread submits.
			toSubmit = 0
			if r.needWakeup() {
				flags |= enterSQWakeup
			}
		}
		r.Stats.Enters.Add(1)
		if h := EnterHook.Load(); h != nil {
			if err := (*h)(r, toSubmit); err != nil {
				return 0, fmt.Errorf("ring: io_uring_enter: %w", err)
			}
			toSubmit = r.pending()
		}
		n, err := call(r.fd, toSubmit, minComplete, flags, nil, 0)
		if err == nil {
			r.Stats.Submits.Add(uint64(n))
			return n, nil
		}
		if errors.Is(err, unix.EINTR) {
			r.Stats.EINTR.Add(1)
			// Some SQEs may have been consumed before the interruption;
			// if the wait is already satisfied the next call returns at once.
			toSubmit = r.pending()
			continue
		}
		return 0, fmt.Errorf("ring: io_uring_enter: %w", err)
	}
}

// PeekCQE pops one ready completion, if any, without a system call.
func (r *Ring) PeekCQE() (CQE, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return CQE{}, false
	}
	return r.peekLocked()
}

func (r *Ring) peekLocked() (CQE, bool) {
	head := *r.cqHead // only we write head
	// Acquire load: the CQE at head is fully written once tail covers it.
	if head == atomic.LoadUint32(r.cqTail) {
		return CQE{}, false
	}
	cqe := *(*CQE)(unsafe.Add(r.cqes, uintptr(head&r.cqMask)*unsafe.Sizeof(CQE{})))
	// Release store: tells the kernel the slot may be reused.
	atomic.StoreUint32(r.cqHead, head+1)
	r.Stats.Reaped.Add(1)
	r.release(cqe.UserData)
	return cqe, true
}

// release forgets the first in-flight op with userData; from here on the
// kernel no longer touches its memory.
func (r *Ring) release(userData uint64) {
	for i := range r.inflight {
		if r.inflight[i].userData == userData {
			r.inflight[i].pin.Unpin()
			last := len(r.inflight) - 1
			r.inflight[i] = r.inflight[last]
			r.inflight[last] = inflightOp{}
			r.inflight = r.inflight[:last]
			return
		}
	}
}

// WaitCQE submits what is prepared and returns the next completion, blocking
// until there is one.
func (r *Ring) WaitCQE() (CQE, error) {
	if err := r.SubmitAndWait(1); err != nil {
		return CQE{}, err
	}
	cqe, ok := r.PeekCQE()
	if !ok {
		return CQE{}, fmt.Errorf("ring: woke without a completion")
	}
	return cqe, nil
}

// Interrupt cancels every submitted operation still in flight and makes
// the owner's next submission fail with ErrInterrupted (withdrawing what it
// had prepared), until ClearInterrupt. The cancelled operations complete
// with -ECANCELED (or their result, if they won the race), and each cancel
// request adds one completion with user data InternalUserData, which the
// owner reaps like any other.
//
// Unlike every other method, Interrupt may be called from any goroutine at
// any time, including while the owner is blocked in SubmitAndWait and after
// Close (where it does nothing).
func (r *Ring) Interrupt() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.interrupted {
		return nil
	}
	r.interrupted = true
	if r.sqeTail != r.pubTail {
		// The owner is preparing entries, possibly half-filled, that sit in
		// the SQ ahead of any cancel we could add. Its next publish
		// withdraws them and issues the cancels itself.
		return nil
	}
	return r.cancelAndSubmitLocked()
}

// cancelAndSubmitLocked cancels every published in-flight operation and
// submits the cancels. Submitting from a goroutine other than the owner's is
// allowed by the kernel, which serialises submitters itself; the owner's
// waiting enter holds no submission state. Everything published is
// submitted in SQ order, so a cancel always follows its target.
func (r *Ring) cancelAndSubmitLocked() error {
	if err := r.cancelPublishedLocked(); err != nil {
		return err
	}
	return r.submitPending()
}

// Interrupted reports whether Interrupt was called since the last
// ClearInterrupt.
func (r *Ring) Interrupted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.interrupted
}

// ClearInterrupt re-enables submission after an Interrupt. Owner only.
func (r *Ring) ClearInterrupt() {
	r.mu.Lock()
	r.interrupted = false
	r.mu.Unlock()
}

// InternalUserData is the user data of the cancel requests the ring issues
// itself (Interrupt, Close). Callers must not use it for their own ops.
const InternalUserData = ^uint64(0)

// cancelPublishedLocked prepares and publishes one cancel per published,
// non-internal in-flight operation.
func (r *Ring) cancelPublishedLocked() error {
	var targets []uint64
	for _, op := range r.inflight {
		if !op.internal && int32(op.seq-r.pubTail) < 0 {
			targets = append(targets, op.userData)
		}
	}
	for _, ud := range targets {
		sqe, err := r.prepareLocked(InternalUserData, nil)
		if errors.Is(err, ErrSQFull) && r.pending() > 0 {
			// Published entries the kernel has not consumed yet (the owner
			// has not entered): submit them, in order, to make room.
			var wait uint32
			if r.sqpoll {
				wait = enterSQWait // the thread consumes them; wait for room
			}
			if _, err := r.enter(r.pending(), 0, wait); err != nil {
				return fmt.Errorf("ring: cancel: %w", err)
			}
			sqe, err = r.prepareLocked(InternalUserData, nil)
		}
		if err != nil {
			return fmt.Errorf("ring: cancel: %w", err)
		}
		r.inflight[len(r.inflight)-1].internal = true
		sqe.Opcode = opAsyncCancel
		sqe.Fd = -1
		sqe.Addr = ud
	}
	atomic.StoreUint32(r.sqTail, r.sqeTail)
	r.pubTail = r.sqeTail
	return nil
}

// Close cancels every operation still in flight, waits for their
// completions (so the kernel is done with their memory), then unmaps the
// rings and closes the descriptor. Closing twice returns ErrClosed.
//
// Close must run on the ring's owner goroutine, never concurrently with
// another owner method; a concurrent Interrupt is fine.
func (r *Ring) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	var firstErr error
	if len(r.inflight) > 0 {
		firstErr = r.cancelAllLocked()
	}
	r.closed = true
	if r.pollFile != nil {
		r.pollFile.Close()
	}
	r.unmap()
	if err := unix.Close(r.fd); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("ring: close ring: %w", err)
	}
	if len(r.inflight) > 0 {
		// The kernel may still write into this memory while it tears the
		// ring down: keep it reachable and pinned for good.
		abandoned.mu.Lock()
		abandoned.ops = append(abandoned.ops, r.inflight)
		abandoned.mu.Unlock()
	}
	r.inflight = nil
	return firstErr
}

// Drain cancels every operation in flight and reaps completions, discarding
// them, until none is left. Owner only; a concurrent Interrupt is fine.
func (r *Ring) Drain() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if len(r.inflight) == 0 {
		return nil
	}
	return r.cancelAllLocked()
}

// cancelAllLocked publishes whatever is prepared, cancels every in-flight
// operation and reaps until none is left. A cancel can miss its target
// (-ENOENT) when that operation has not started yet — a linked recv is
// issued only once its send completes — so whenever the cancels are all
// reaped and targets remain, it cancels them again.
func (r *Ring) cancelAllLocked() error {
	atomic.StoreUint32(r.sqTail, r.sqeTail)
	r.pubTail = r.sqeTail
	for len(r.inflight) > 0 {
		if !r.cancelsOutstandingLocked() {
			if err := r.cancelPublishedLocked(); err != nil {
				return fmt.Errorf("ring: cancel: %w", err)
			}
		}
		if _, err := r.enter(r.pending(), 1, enterGetEvents); err != nil {
			return fmt.Errorf("ring: cancel: %w", err)
		}
		for {
			if _, ok := r.peekLocked(); !ok {
				break
			}
		}
	}
	return nil
}

// cancelsOutstandingLocked reports whether a cancel the ring issued itself
// is still in flight.
func (r *Ring) cancelsOutstandingLocked() bool {
	for _, op := range r.inflight {
		if op.internal {
			return true
		}
	}
	return false
}
