// Package uring is an HTTP/1.1 http.RoundTripper (Transport) whose sockets
// do their I/O through io_uring. Its exported surface is the Transport, its
// Options and Available; the ring binding itself lives in internal/ring,
// which talks to the kernel with raw system calls from golang.org/x/sys/unix
// (no cgo, no liburing, no go:linkname) and covers what the transport needs
// and nothing else. Available probes the kernel's opcodes and features
// (IORING_REGISTER_PROBE) so an old kernel is refused with a reason, and
// transport.New falls back to net/http.
//
// The RoundTripper (Transport) keeps a small keep-alive pool per host. A
// connection's request runs on its private ring (or, in the shared wait, a
// lane of a shared ring, below), on the caller's goroutine: the request
// bytes are queued, then one io_uring_enter submits the send linked to the
// first recv (and, in WaitBlock mode, waits for both completions in the
// same call).
// That is the whole point of the package: net/http spends two goroutine hand
// offs (its readLoop and writeLoop) and several system calls (write, read,
// EAGAIN read, epoll_pwait, futex wake-ups) on the same exchange.
//
// How a caller waits is the one measured trade-off (see WaitMode): blocking
// in io_uring_enter is one system call per exchange but pins the caller's P
// while it waits; parking in Go's poller on the ring descriptor costs an
// epoll round but frees the P and lets one thread run client and server
// back to back. The default (WaitAuto) picks per host: a server listening
// in this process gets the poll wait; a server elsewhere the hold wait, a
// blocking enter that keeps its P (at most GOMAXPROCS-1 at a time,
// counted in internal/phold; the rest poll), which costs about one system call per exchange and the least
// CPU. Transport.WaitUsed says which a host got and why.
//
// Why a private ring per connection, even for hundreds of connections: a
// shared ring needs someone to reap it, and handing each completion from
// the reaper to the waiting caller is a goroutine hop (and, with an idle
// P, a thread wake-up) that a caller reaping its own ring does not pay.
// The shared wait (KATBENCH_URING_WAIT=shared; shared.go, a lane of
// internal/ring.Shared per connection) has one reaper submit and reap for
// every connection in one io_uring_enter: measured at 64 and 256
// connections it makes fewer system calls and holds one descriptor per
// connection instead of three, but costs more CPU per request than private
// rings against two of three stores — the waiters beyond the one holding a
// P park in Go's poller, whose epoll wait already wakes many of them at
// once — so it is not the default.
//
// Faults: a pooled connection idle for a millisecond or more is checked with
// a non-blocking peek before reuse and dropped after Options.IdleTimeout; a
// request that still meets a closed connection is resent once when its body
// can be rewound (GetBody, or an io.Seeker — minio-go's). Timeouts
// (DialTimeout, ResponseHeaderTimeout, the context) interrupt the ring from
// a timer or the context's AfterFunc, so they bound every operation of the
// phase, sends included; a step never returns while its operations are in
// flight. Against servers that close connections, a closed connection's
// quiet ring and buffers are reused by the next dial.
//
// Limits, as net/http's: the bytes of a response's headers, every 1xx
// response before it included, are bounded by
// Options.MaxResponseHeaderBytes (ErrResponseHeaderTooLarge past it), and a
// server that answers before reading the whole request body (a 413) and
// then resets the connection gets its answer returned, not the send error.
//
// Plaintext http:// only; transport.New sends https:// to net/http.
package uring
