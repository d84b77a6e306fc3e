package uring

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SubmitAndWaitTimeout is SubmitAndWait with a bound on the wait, passed to
// the kernel through IORING_ENTER_EXT_ARG (no timeout SQE, nothing to
// cancel afterwards). Owner only.
func (r *Ring) SubmitAndWaitTimeout(want uint32, d time.Duration) error {
	if r.features&FeatExtArg == 0 {
		return ErrNoExtArg
	}
	deadline := time.Now().Add(d)
	ts := new(timespec)
	arg := &getEventsArg{ts: uint64(uintptr(unsafe.Pointer(ts)))}
	for {
		r.mu.Lock()
		pending, err := r.publishLocked()
		ready := uint32(0)
		if err == nil {
			ready = atomic.LoadUint32(r.cqTail) - *r.cqHead
		}
		r.mu.Unlock()
		if err != nil {
			return err
		}
		if pending == 0 && ready >= want {
			return nil
		}
		left := time.Until(deadline)
		if ready < want && left <= 0 {
			return ErrWaitTimeout
		}
		*ts = timespec{Sec: int64(left / time.Second), Nsec: int64(left % time.Second)}
		r.Stats.Enters.Add(1)
		// The kernel reads arg and ts during the call only; arg travels as
		// an unsafe.Pointer argument and KeepAlive below holds ts, whose
		// address hides in arg as an integer, until the call returns.
		_, err = enterFunc(r.fd, pending, want, enterGetEvents|enterExtArg, unsafe.Pointer(arg), unsafe.Sizeof(*arg))
		switch {
		case err == nil:
		case errors.Is(err, unix.EINTR):
			r.Stats.EINTR.Add(1)
		case errors.Is(err, unix.ETIME):
			if atomic.LoadUint32(r.cqTail)-atomic.LoadUint32(r.cqHead) < want {
				return ErrWaitTimeout
			}
		default:
			return fmt.Errorf("uring: io_uring_enter: %w", err)
		}
		runtime.KeepAlive(ts)
	}
}
