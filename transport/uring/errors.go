package uring

import "errors"

var (
	// ErrUnavailable means io_uring cannot be used in this process: the
	// kernel lacks it (ENOSYS), a seccomp filter or policy refuses it (EPERM,
	// EACCES), kernel.io_uring_disabled is set, or a test forced the failure.
	// Errors from NewRing and Available wrap it together with the cause.
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

	// ErrServerClosed means the server closed a reused keep-alive connection
	// before sending any byte of the response. Idempotent requests are
	// retried once on a fresh connection; others fail with this error.
	ErrServerClosed = errors.New("server closed the keep-alive connection before responding")

	// ErrPoolClosed is returned by a Transport's RoundTrip after Close.
	ErrPoolClosed = errors.New("uring transport closed")

	// ErrWaitTimeout is returned by SubmitAndWaitTimeout when fewer
	// completions than wanted were ready when the timeout expired.
	ErrWaitTimeout = errors.New("io_uring wait timed out")

	// ErrNoExtArg means the kernel lacks IORING_FEAT_EXT_ARG (Linux < 5.11),
	// so a wait cannot carry its own timeout.
	ErrNoExtArg = errors.New("io_uring_enter EXT_ARG not supported by this kernel")
)
