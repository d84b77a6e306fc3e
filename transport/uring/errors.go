package uring

import (
	"errors"

	"github.com/nordisk/katbench/internal/ring"
)

var (
	// ErrUnavailable means io_uring cannot be used in this process: the
	// kernel lacks it (ENOSYS) or an opcode or feature the transport needs,
	// a seccomp filter or policy refuses it (EPERM, EACCES),
	// kernel.io_uring_disabled is set, or a test forced the failure.
	// Errors from Available and NewTransport wrap it with the cause.
	ErrUnavailable = ring.ErrUnavailable

	// ErrServerClosed means the server closed a reused keep-alive connection
	// before sending any byte of the response, and the request could not be
	// sent again (its method is not idempotent or its body cannot be
	// rewound). Rewindable requests are retried once on a fresh connection.
	ErrServerClosed = errors.New("server closed the keep-alive connection before responding")

	// ErrResponseHeaderTooLarge means the server sent more header bytes
	// (1xx responses included) than Options.MaxResponseHeaderBytes; net/http
	// fails the same way ("server response headers exceeded").
	ErrResponseHeaderTooLarge = errors.New("server response headers exceeded the limit")

	// ErrPoolClosed is returned by a Transport's RoundTrip after Close.
	ErrPoolClosed = errors.New("uring transport closed")
)
