package ring

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Shared is one io_uring instance used by many goroutines at once, each
// through a Lane of its own. A lane's owner stages up to LaneOps operations
// and calls SubmitAndWait, which publishes them and parks the goroutine on
// the lane's channel. One reaper goroutine per Shared submits everything
// the lanes published since its last wait in a single io_uring_enter,
// waits in that same call for completions, reaps every ready completion
// under one lock and wakes each lane whose operations are all complete.
//
// So with many lanes busy, one system call submits and reaps for many
// requests. The reaper yields after each batch, so the owners it woke run
// on its P and publish their next operations before it enters again. A
// lane that publishes while the reaper waits in the kernel submits its
// entries itself (a non-waiting io_uring_enter), so no operation waits for
// an unrelated completion to be submitted.
//
// Concurrency: NewLane, Lanes, Close and every Lane's Interrupt are safe for
// concurrent use. The other Lane methods belong to the lane's owner, one
// goroutine at a time.
type Shared struct {
	r     *Ring
	opts  SharedOptions
	fixed bool          // a file table of opts.Lanes slots is registered
	kick  chan struct{} // wakes an idle reaper; capacity 1
	done  chan struct{} // closed when the reaper has returned

	mu     sync.Mutex
	lanes  []*Lane  // by lane id; nil where free
	free   []uint32 // free lane ids
	nlanes int
	ops    int // entries published and not yet reaped, cancels included
	state  reaperState
	closed bool
	err    error // the reaper's or a submission's failure: the ring is dead

	wakeBuf []*Lane // the reaper's list of lanes to wake; reaper only

	// Stats counts what the shared ring did (its Ring's Stats count the
	// system calls).
	Stats SharedStats
}

// SharedStats counts the work of a Shared ring. Safe to read at any time.
type SharedStats struct {
	Waits       atomic.Uint64 // the reaper's waiting io_uring_enter calls
	Reaped      atomic.Uint64 // completions the reaper consumed
	SelfSubmits atomic.Uint64 // submissions a lane made itself while the reaper waited
	Kicks       atomic.Uint64 // times a lane woke the idle reaper
	FileUpdates atomic.Uint64 // io_uring_register calls of UseFile and ReleaseFile
}

// reaperState is where the reaper is, which decides who submits newly
// published entries.
type reaperState uint8

const (
	reaperIdle   reaperState = iota // parked: nothing in flight; the publisher kicks it
	reaperBusy                      // in user space: its next enter submits what is published
	reaperKernel                    // waiting in io_uring_enter: the publisher submits
)

// SharedOptions configures NewShared.
type SharedOptions struct {
	// Lanes caps the lanes open at once; 0 means 256. The ring is sized so
	// that every lane can have LaneOps operations and as many cancels in
	// flight without the SQ or the CQ running out.
	Lanes int
	// Hold, when set, is asked before every wait of the reaper whether it
	// may keep its P while the kernel waits (a raw io_uring_enter, as
	// SubmitAndWaitHolding: no scheduler hand-off around the wait).
	// Release is called after each wait Hold allowed. Nil means never.
	Hold    func() bool
	Release func()
	// FixedFiles registers a file table of one slot per lane, so a lane's
	// operations on the socket it registered (Lane.UseFile) name the slot
	// (IOSQE_FIXED_FILE). When the kernel refuses the table the ring works
	// without one (Shared.FixedFiles says which).
	FixedFiles bool
}

// LaneOps is the number of operations a Lane can have staged or in flight
// at once: a send linked ahead of a recv is the largest exchange.
const LaneOps = 2

// User data of a lane's entries: the lane id above the low byte; the low
// byte is the op's index, with cancelBit set for the cancel of that op.
const cancelBit = 0x80

// sharedBeforeWait, when set, runs on the reaper before it marks itself in
// the kernel and waits. A test seam: it lets a test hold the reaper until
// several lanes have published, so one enter provably submits them all.
var sharedBeforeWait atomic.Pointer[func(*Shared)]

// NewShared sets up a shared ring and starts its reaper goroutine, which
// runs until Close. An error wraps ErrUnavailable when io_uring itself
// cannot be used here.
func NewShared(opts SharedOptions) (*Shared, error) {
	if opts.Lanes <= 0 {
		opts.Lanes = 256
	}
	if opts.Lanes > 4096 {
		return nil, fmt.Errorf("ring: shared ring of %d lanes: at most 4096", opts.Lanes)
	}
	r, err := New(uint32(opts.Lanes * 2 * LaneOps))
	if err != nil {
		return nil, err
	}
	s := &Shared{r: r, opts: opts, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if opts.FixedFiles {
		s.fixed = r.registerFileTable(opts.Lanes) == nil
	}
	go s.run()
	return s, nil
}

// FixedFiles reports whether the ring has a registered file table (see
// SharedOptions.FixedFiles).
func (s *Shared) FixedFiles() bool { return s.fixed }

// Ring returns the ring underneath, for its Stats and Entries. Its other
// methods must not be called.
func (s *Shared) Ring() *Ring { return s.r }

// Lanes returns the number of open lanes.
func (s *Shared) Lanes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nlanes
}

// NewLane opens a lane on s. It fails with ErrBusy when SharedOptions.Lanes
// lanes are open, and with ErrClosed after Close.
func (s *Shared) NewLane() (*Lane, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, ErrClosed
	case s.err != nil:
		return nil, s.err
	case s.nlanes >= s.opts.Lanes:
		return nil, ErrBusy
	}
	l := &Lane{s: s, wake: make(chan struct{}, 1), file: -1}
	if n := len(s.free); n > 0 {
		l.id = s.free[n-1]
		s.free = s.free[:n-1]
		s.lanes[l.id] = l
	} else {
		l.id = uint32(len(s.lanes))
		s.lanes = append(s.lanes, l)
	}
	s.nlanes++
	return l, nil
}

// Close stops the reaper and closes the ring. Every lane must have been
// closed; Close fails otherwise and leaves s working. Closing twice returns
// ErrClosed.
func (s *Shared) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.nlanes > 0 {
		n := s.nlanes
		s.mu.Unlock()
		return fmt.Errorf("ring: close shared ring with %d lanes open", n)
	}
	s.closed = true
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	<-s.done
	return s.r.Close()
}

// run is the reaper.
func (s *Shared) run() {
	defer close(s.done)
	r := s.r
	for {
		s.mu.Lock()
		for s.ops == 0 && !s.closed && s.err == nil {
			s.state = reaperIdle
			s.mu.Unlock()
			<-s.kick
			s.mu.Lock()
		}
		if s.err != nil || (s.closed && s.ops == 0) {
			s.mu.Unlock()
			return
		}
		if h := sharedBeforeWait.Load(); h != nil {
			s.mu.Unlock()
			(*h)(s)
			s.mu.Lock()
		}
		// From here a publisher submits its own entries; what is
		// published up to now this enter submits (the count is read after
		// the state changed, so no entry is left to nobody).
		s.state = reaperKernel
		s.mu.Unlock()
		hold := s.opts.Hold != nil && s.opts.Hold()
		_, err := r.enterMode(r.pending(), 1, enterGetEvents, hold)
		if hold && s.opts.Release != nil {
			s.opts.Release()
		}
		s.Stats.Waits.Add(1)
		s.mu.Lock()
		s.state = reaperBusy
		if err != nil {
			s.failLocked(err)
			s.mu.Unlock()
			return
		}
		wake := s.reapLocked(s.wakeBuf[:0])
		s.mu.Unlock()
		for i, l := range wake {
			l.signal()
			wake[i] = nil
		}
		s.wakeBuf = wake[:0]
		// Let the owners just woken run here and publish their next
		// operations, so the next enter submits them together.
		runtime.Gosched()
	}
}

// reapLocked consumes every ready completion and appends to wake the lanes
// that must be woken: all of a lane's operations and cancels completed, or
// its last cancel completed with operations still in flight (an
// interrupted owner then cancels again).
func (s *Shared) reapLocked(wake []*Lane) []*Lane {
	r := s.r
	head := *r.cqHead
	tail := atomic.LoadUint32(r.cqTail)
	for ; head != tail; head++ {
		cqe := *(*CQE)(unsafe.Add(r.cqes, uintptr(head&r.cqMask)*unsafe.Sizeof(CQE{})))
		id, tag := uint32(cqe.UserData>>8), uint8(cqe.UserData)
		s.ops--
		if int(id) >= len(s.lanes) || s.lanes[id] == nil {
			continue // cannot happen: a lane closes only when quiet
		}
		l := s.lanes[id]
		if tag&cancelBit != 0 {
			l.cancels--
			if l.cancels == 0 {
				wake = append(wake, l)
			}
			continue
		}
		i := tag
		l.flying &^= 1 << i
		l.res[i], l.flags[i] = cqe.Res, cqe.Flags
		if l.flying == 0 && l.cancels == 0 {
			wake = append(wake, l)
		}
	}
	n := head - *r.cqHead
	atomic.StoreUint32(r.cqHead, head)
	s.Stats.Reaped.Add(uint64(n))
	r.Stats.Reaped.Add(uint64(n))
	return wake
}

// failLocked kills the ring after a failed io_uring_enter: every lane with
// something in flight is woken to fail with err, and keeps its memory
// pinned for good (the kernel may still use it).
func (s *Shared) failLocked(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("ring: shared ring: %w", err)
	}
	for _, l := range s.lanes {
		if l != nil && (l.flying != 0 || l.cancels != 0) {
			l.signal()
		}
	}
}

// noteLocked tells the reaper that entries were published: an idle reaper
// is kicked; when it waits in the kernel, noteLocked returns true and the
// caller submits them itself (after unlocking, with submit).
func (s *Shared) noteLocked() bool {
	switch s.state {
	case reaperIdle:
		s.state = reaperBusy
		s.Stats.Kicks.Add(1)
		select {
		case s.kick <- struct{}{}:
		default:
		}
	case reaperKernel:
		return true
	}
	return false
}

// submit hands the kernel what is published, without waiting; the reaper
// may be submitting at the same time, which the kernel serialises (each
// call takes at most what is there).
func (s *Shared) submit() {
	s.Stats.SelfSubmits.Add(1)
	if _, err := s.r.enter(s.r.pending(), 0, 0); err != nil {
		s.mu.Lock()
		s.failLocked(err)
		s.mu.Unlock()
	}
}

// publishLocked copies an SQE into the ring's next slot with user data ud
// and makes it visible to the kernel. The ring is sized so that a slot is
// always free (SharedOptions.Lanes).
func (s *Shared) publishLocked(sqe *SQE, ud uint64) {
	r := s.r
	slot := (*SQE)(unsafe.Add(r.sqes, uintptr(r.sqeTail&r.sqMask)*unsafe.Sizeof(SQE{})))
	*slot = *sqe
	slot.UserData = ud
	r.sqeTail++
	r.pubTail = r.sqeTail
	// Release store: the entry is complete before the kernel sees it.
	atomic.StoreUint32(r.sqTail, r.sqeTail)
	s.ops++
}

// Lane is one goroutine's share of a Shared ring: its staged operations,
// their results, and the channel its owner parks on.
//
// Concurrency: one owner goroutine at a time calls the Prep methods,
// SubmitAndWait, ClearInterrupt and Close; Interrupt and Interrupted may be
// called from any goroutine at any time.
//
// Memory an operation refers to is pinned and referenced from the lane,
// which the Shared ring references while the operation is in flight, until
// SubmitAndWait has seen its completion; if the ring dies first, it stays
// pinned for the life of the process.
type Lane struct {
	s    *Shared
	id   uint32
	wake chan struct{} // capacity 1: the reaper or Interrupt wakes the owner

	// Owner only.
	staged [LaneOps]SQE
	user   [LaneOps]uint64 // the owner's user data of each staged op
	keep   [LaneOps]unsafe.Pointer
	pins   [LaneOps]runtime.Pinner
	n      int // ops staged or in flight
	out    [LaneOps]CQE
	closed bool
	file   int // the descriptor in the lane's file slot (UseFile); -1 when none

	// Guarded by s.mu.
	flying  uint8 // bit i: op i published, its completion not reaped
	cancels int   // cancels in flight
	res     [LaneOps]int32
	flags   [LaneOps]uint32

	interrupted atomic.Bool
}

// signal wakes the owner if it is parked, or makes its next park return.
func (l *Lane) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// stage reserves the next op of the lane for userData, keeping keep for
// the kernel.
func (l *Lane) stage(userData uint64, keep unsafe.Pointer) (*SQE, error) {
	if l.closed {
		return nil, ErrClosed
	}
	if l.n >= LaneOps {
		return nil, ErrSQFull
	}
	i := l.n
	l.n++
	l.staged[i] = SQE{}
	l.user[i] = userData
	l.keep[i] = keep
	if keep != nil {
		l.pins[i].Pin(keep)
	}
	return &l.staged[i], nil
}

// PrepConnect stages connect(2), as Ring.PrepConnect. The returned SQE is
// the lane's copy, copied into the ring by SubmitAndWait (so its Flags may
// be set, e.g. FlagLink); its UserData is replaced there.
func (l *Lane) PrepConnect(userData uint64, fd int, sa []byte) (*SQE, error) {
	sqe, err := l.stage(userData, bytesPtr(sa))
	if err == nil {
		sqe.setConnect(fd, sa)
		l.fixFile(sqe)
	}
	return sqe, err
}

// PrepSend stages send(2), as Ring.PrepSend.
func (l *Lane) PrepSend(userData uint64, fd int, p []byte, waitAll bool) (*SQE, error) {
	sqe, err := l.stage(userData, bytesPtr(p))
	if err == nil {
		sqe.setSend(fd, p, waitAll)
		l.fixFile(sqe)
	}
	return sqe, err
}

// PrepRecv stages recv(2), as Ring.PrepRecv.
func (l *Lane) PrepRecv(userData uint64, fd int, p []byte, waitAll bool) (*SQE, error) {
	sqe, err := l.stage(userData, bytesPtr(p))
	if err == nil {
		sqe.setRecv(fd, p, waitAll)
		l.fixFile(sqe)
	}
	return sqe, err
}

// PrepNop stages a no-op.
func (l *Lane) PrepNop(userData uint64) (*SQE, error) {
	sqe, err := l.stage(userData, nil)
	if err == nil {
		sqe.setNop()
	}
	return sqe, err
}

// SubmitAndWait publishes the staged operations and parks until every one
// of them has completed, and returns their completions in staging order
// with the caller's user data. After an Interrupt it cancels what is in
// flight, waits until all of it (cancels included) is reaped, and returns
// ErrInterrupted, with the completions; staged operations not yet
// published are withdrawn. It never returns while an operation of the
// lane is in flight, except with the ring's failure (then the memory stays
// pinned for good). The returned slice is valid until the next call.
func (l *Lane) SubmitAndWait() ([]CQE, error) {
	s := l.s
	if l.closed {
		return nil, ErrClosed
	}
	if l.n == 0 {
		return nil, nil
	}
	if l.interrupted.Load() {
		l.unpin()
		return nil, ErrInterrupted
	}
	s.mu.Lock()
	if s.err != nil || s.closed {
		err := s.err
		if err == nil {
			err = ErrClosed
		}
		s.mu.Unlock()
		l.unpin()
		return nil, err
	}
	base := uint64(l.id) << 8
	for i := 0; i < l.n; i++ {
		s.publishLocked(&l.staged[i], base|uint64(i))
		l.flying |= 1 << i
	}
	self := s.noteLocked()
	s.mu.Unlock()
	if self {
		s.submit()
	}
	for {
		<-l.wake
		s.mu.Lock()
		if l.flying == 0 && l.cancels == 0 {
			break // s.mu held
		}
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			l.abandon()
			return nil, err
		}
		self = false
		if l.interrupted.Load() && l.cancels == 0 {
			// Cancel whatever is still in flight. A cancel misses an op
			// that has not started (a recv linked behind its send): once
			// the cancels are reaped with ops left, the reaper wakes us
			// and we cancel again.
			for i := 0; i < l.n; i++ {
				if l.flying&(1<<i) != 0 {
					var c SQE
					c.setCancel(base | uint64(i))
					s.publishLocked(&c, base|cancelBit|uint64(i))
					l.cancels++
				}
			}
			self = s.noteLocked()
		}
		s.mu.Unlock()
		if self {
			s.submit()
		}
	}
	for i := 0; i < l.n; i++ {
		l.out[i] = CQE{UserData: l.user[i], Res: l.res[i], Flags: l.flags[i]}
	}
	s.mu.Unlock()
	out := l.out[:l.n]
	l.unpin()
	if l.interrupted.Load() {
		return out, ErrInterrupted
	}
	return out, nil
}

// Withdraw drops the staged operations, which were never submitted. Owner
// only, between SubmitAndWait calls.
func (l *Lane) Withdraw() { l.unpin() }

// unpin forgets the staged ops: the kernel is done with their memory.
func (l *Lane) unpin() {
	for i := 0; i < l.n; i++ {
		if l.keep[i] != nil {
			l.pins[i].Unpin()
			l.keep[i] = nil
		}
	}
	l.n = 0
}

// abandon keeps the lane's memory pinned and reachable for the life of
// the process: the ring died with its operations in flight.
func (l *Lane) abandon() {
	abandoned.mu.Lock()
	abandoned.lanes = append(abandoned.lanes, l)
	abandoned.mu.Unlock()
	l.n = 0
	l.closed = true
}

// Interrupt makes the owner's wait cancel its operations and return
// ErrInterrupted, and its next SubmitAndWait fail with ErrInterrupted,
// until ClearInterrupt. Any goroutine may call it at any time.
func (l *Lane) Interrupt() {
	l.interrupted.Store(true)
	l.signal()
}

// Interrupted reports whether Interrupt was called since the last
// ClearInterrupt.
func (l *Lane) Interrupted() bool { return l.interrupted.Load() }

// ClearInterrupt re-enables submission after an Interrupt. Owner only.
func (l *Lane) ClearInterrupt() { l.interrupted.Store(false) }

// Err returns ErrClosed after Close, the ring's failure once an
// io_uring_enter of its ring failed (the lane can never be used again),
// and nil otherwise. Owner only.
func (l *Lane) Err() error {
	if l.closed {
		return ErrClosed
	}
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Shared returns the ring the lane belongs to.
func (l *Lane) Shared() *Shared { return l.s }

// Close gives the lane's slot back. Owner only; the lane must be quiet
// (SubmitAndWait returned). Closing twice returns ErrClosed.
func (l *Lane) Close() error {
	if l.closed {
		return ErrClosed
	}
	if l.n > 0 {
		return errors.New("ring: close lane with operations staged")
	}
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.flying != 0 || l.cancels != 0 {
		return errors.New("ring: close lane with operations in flight")
	}
	if err := l.ReleaseFile(); err != nil && s.err == nil {
		return err
	}
	l.closed = true
	s.lanes[l.id] = nil
	s.free = append(s.free, l.id)
	s.nlanes--
	return nil
}
