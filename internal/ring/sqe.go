package ring

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Prep methods reserve the next SQE, fill it for one operation and
// record the operation as in flight under userData. Nothing reaches the
// kernel until Submit, SubmitAndWait or WaitCQE. Each returns ErrSQFull when
// every slot holds an unsubmitted entry, ErrBusy when the CQ could not hold
// one more completion, or ErrClosed. The memory an operation refers to (p,
// sa, ts) is kept reachable by the ring until the operation's CQE is reaped;
// the caller must not modify it in the meantime.

// PrepNop queues a no-op; its CQE carries Res 0.
func (r *Ring) PrepNop(userData uint64) (*SQE, error) {
	sqe, err := r.prepare(userData, nil)
	if err != nil {
		return nil, err
	}
	sqe.setNop()
	return sqe, nil
}

func (sqe *SQE) setNop() {
	sqe.Opcode = opNop
	sqe.Fd = -1
}

// PrepConnect queues connect(2) of socket fd to the address sa (sa holds
// the raw sockaddr bytes, e.g. a unix.RawSockaddrInet4 viewed as bytes).
func (r *Ring) PrepConnect(userData uint64, fd int, sa []byte) (*SQE, error) {
	sqe, err := r.prepare(userData, bytesPtr(sa))
	if err != nil {
		return nil, err
	}
	sqe.setConnect(fd, sa)
	return sqe, nil
}

func (sqe *SQE) setConnect(fd int, sa []byte) {
	sqe.Opcode = opConnect
	sqe.Fd = int32(fd)
	sqe.Addr = uint64(uintptr(bytesPtr(sa)))
	sqe.Off = uint64(len(sa)) // addrlen travels in the offset field
}

// PrepSend queues send(2) of p on socket fd. With waitAll the kernel keeps
// sending until all of p went out (MSG_WAITALL), so a success is never short.
func (r *Ring) PrepSend(userData uint64, fd int, p []byte, waitAll bool) (*SQE, error) {
	sqe, err := r.prepare(userData, bytesPtr(p))
	if err != nil {
		return nil, err
	}
	sqe.setSend(fd, p, waitAll)
	return sqe, nil
}

func (sqe *SQE) setSend(fd int, p []byte, waitAll bool) {
	sqe.Opcode = opSend
	sqe.Fd = int32(fd)
	sqe.Addr = uint64(uintptr(bytesPtr(p)))
	sqe.Len = uint32(len(p))
	sqe.OpFlags = unix.MSG_NOSIGNAL
	if waitAll {
		sqe.OpFlags |= unix.MSG_WAITALL
	}
}

// PrepRecv queues recv(2) into p on socket fd. Res 0 means the peer closed.
// With waitAll (MSG_WAITALL) the kernel keeps receiving until p is full, the
// peer closes or an error occurs, so one completion can carry a whole body.
func (r *Ring) PrepRecv(userData uint64, fd int, p []byte, waitAll bool) (*SQE, error) {
	sqe, err := r.prepare(userData, bytesPtr(p))
	if err != nil {
		return nil, err
	}
	sqe.setRecv(fd, p, waitAll)
	return sqe, nil
}

func (sqe *SQE) setRecv(fd int, p []byte, waitAll bool) {
	sqe.Opcode = opRecv
	sqe.Fd = int32(fd)
	sqe.Addr = uint64(uintptr(bytesPtr(p)))
	sqe.Len = uint32(len(p))
	if waitAll {
		sqe.OpFlags = unix.MSG_WAITALL
	}
}

// FsyncDatasync is the fsync flag (IORING_FSYNC_DATASYNC) that makes
// PrepFsync an fdatasync(2).
const FsyncDatasync uint32 = 1 << 0

// PrepFsync queues fsync(2) of fd, or fdatasync(2) when flags holds
// FsyncDatasync. Res is 0 or the negated errno (a write-back error of the
// file included).
func (r *Ring) PrepFsync(userData uint64, fd int, flags uint32) (*SQE, error) {
	sqe, err := r.prepare(userData, nil)
	if err != nil {
		return nil, err
	}
	sqe.Opcode = opFsync
	sqe.Fd = int32(fd)
	sqe.OpFlags = flags
	return sqe, nil
}

// PrepClose queues close(2) of fd.
func (r *Ring) PrepClose(userData uint64, fd int) (*SQE, error) {
	sqe, err := r.prepare(userData, nil)
	if err != nil {
		return nil, err
	}
	sqe.Opcode = opClose
	sqe.Fd = int32(fd)
	return sqe, nil
}

// PrepPollAdd queues a one-shot poll of fd for the poll(2) events in mask.
func (r *Ring) PrepPollAdd(userData uint64, fd int, mask uint32) (*SQE, error) {
	sqe, err := r.prepare(userData, nil)
	if err != nil {
		return nil, err
	}
	sqe.Opcode = opPollAdd
	sqe.Fd = int32(fd)
	sqe.OpFlags = mask
	return sqe, nil
}

// Timeout is a relative timeout for PrepLinkTimeout. It must stay unmodified
// until the timeout's CQE is reaped; the ring keeps it reachable until then.
type Timeout struct{ ts timespec }

// Set sets the timeout to ns nanoseconds (clamped at 0).
func (t *Timeout) Set(ns int64) {
	if ns < 0 {
		ns = 0
	}
	t.ts = timespec{Sec: ns / 1e9, Nsec: ns % 1e9}
}

// PrepLinkTimeout queues IORING_OP_LINK_TIMEOUT for the previously prepared
// SQE, which must carry FlagLink: if that operation has not completed when
// t expires, the kernel cancels it (its CQE gets -ECANCELED and this one
// -ETIME); if it completes first, this CQE gets -ECANCELED (or -ENOENT).
func (r *Ring) PrepLinkTimeout(userData uint64, t *Timeout) (*SQE, error) {
	sqe, err := r.prepare(userData, unsafe.Pointer(t))
	if err != nil {
		return nil, err
	}
	sqe.Opcode = opLinkTimeout
	sqe.Fd = -1
	sqe.Addr = uint64(uintptr(unsafe.Pointer(&t.ts)))
	sqe.Len = 1
	return sqe, nil
}

// PrepCancel queues IORING_OP_ASYNC_CANCEL of the in-flight operation with
// user data target. Its own CQE gets 0 (cancelled), -ENOENT (not found,
// already done) or -EALREADY (running, cancellation attempted).
func (r *Ring) PrepCancel(userData, target uint64) (*SQE, error) {
	sqe, err := r.prepare(userData, nil)
	if err != nil {
		return nil, err
	}
	sqe.setCancel(target)
	return sqe, nil
}

func (sqe *SQE) setCancel(target uint64) {
	sqe.Opcode = opAsyncCancel
	sqe.Fd = -1
	sqe.Addr = target
}

// bytesPtr returns the address of p's first byte (nil for an empty slice; a
// zero-length buffer is legal and the kernel never dereferences it).
func bytesPtr(p []byte) unsafe.Pointer {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Pointer(&p[0])
}
