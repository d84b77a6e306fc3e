package ring

import "errors"

var (
	// ErrUnavailable means io_uring cannot be used in this process: the
	// kernel lacks it (ENOSYS), a seccomp filter or policy refuses it (EPERM,
	// EACCES), kernel.io_uring_disabled is set, or the kernel lacks an
	// opcode or feature the transport needs (see Probe). Errors from New and
	// Probe wrap it together with the cause.
	ErrUnavailable = errors.New("io_uring unavailable")

	// ErrSQFull means every submission queue slot holds a prepared but not
	// yet submitted entry. Call Submit (or a waiting method) and retry.
	ErrSQFull = errors.New("io_uring submission queue full")

	// ErrBusy means as many operations are in flight as the completion queue
	// can hold; reap completions before preparing more.
	ErrBusy = errors.New("io_uring too many operations in flight")

	// ErrInterrupted is returned to a ring's owner when it submits after
	// another goroutine called Interrupt.
	ErrInterrupted = errors.New("io_uring ring interrupted")

	// ErrClosed is returned by every method of a closed Ring.
	ErrClosed = errors.New("io_uring ring closed")
)
