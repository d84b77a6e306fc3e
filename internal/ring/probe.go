package ring

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Requirement is what the HTTP transport needs from the kernel: the opcodes
// it submits and the setup features it relies on.
type Requirement struct {
	Ops      []Op
	Features []Feature
}

// Op names one opcode for Probe's report.
type Op struct {
	Code uint8
	Name string
}

// Feature names one IORING_FEAT_* bit for Probe's report.
type Feature struct {
	Bit  uint32
	Name string
}

// Needed is the transport's requirement: connect, send, recv and async
// cancel; NODROP (a full CQ never loses a completion, whose buffer the ring
// would otherwise keep pinned forever), SUBMIT_STABLE (submitted SQEs are
// consumed at submit time, so their slots are reused at once) and FAST_POLL
// (a socket operation that cannot complete yet waits on a poll, not on an
// io-wq worker thread per request). Linux 5.7 or later has all of them.
var Needed = Requirement{
	Ops: []Op{
		{opConnect, "IORING_OP_CONNECT"},
		{opSend, "IORING_OP_SEND"},
		{opRecv, "IORING_OP_RECV"},
		{opAsyncCancel, "IORING_OP_ASYNC_CANCEL"},
	},
	Features: []Feature{
		{FeatNoDrop, "IORING_FEAT_NODROP"},
		{FeatSubmitStable, "IORING_FEAT_SUBMIT_STABLE"},
		{FeatFastPoll, "IORING_FEAT_FAST_POLL"},
	},
}

// Probe sets up a small ring, asks the kernel which opcodes it supports
// (IORING_REGISTER_PROBE) and checks Needed against them and against the
// ring's feature flags. The error wraps ErrUnavailable and names what is
// missing. Safe for concurrent use; each call probes afresh.
func Probe() error { return Needed.Probe() }

// FsyncNeeded is what the batch flushes of package catalog need: fsync
// and fdatasync (IORING_OP_FSYNC) with completions never dropped.
var FsyncNeeded = Requirement{
	Ops:      []Op{{opFsync, "IORING_OP_FSYNC"}},
	Features: []Feature{{FeatNoDrop, "IORING_FEAT_NODROP"}},
}

// Probe sets up a small ring and checks q against the kernel's opcodes and
// the ring's feature flags, like the package's Probe. Safe for concurrent
// use.
func (q Requirement) Probe() error {
	if d := disabledSysctl(); strings.Contains(d, "=2") {
		return fmt.Errorf("%w: %s", ErrUnavailable, d)
	}
	r, err := New(2)
	if err != nil {
		return err
	}
	defer r.Close()
	supported, err := r.supportedOps()
	if err != nil {
		return err
	}
	return q.check(r.features, supported)
}

// supportedOps returns the kernel's opcode support table, indexed by opcode.
func (r *Ring) supportedOps() ([]bool, error) {
	const n = 256
	buf := make([]byte, unsafe.Sizeof(probeHeader{})+n*unsafe.Sizeof(probeOp{}))
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerProbe,
		uintptr(unsafe.Pointer(&buf[0])), n, 0, 0)
	if errno != 0 {
		if errno == unix.EINVAL || errno == unix.ENOSYS {
			return nil, fmt.Errorf("%w: IORING_REGISTER_PROBE: %s (Linux 5.6 or later needed)", ErrUnavailable, errno)
		}
		return nil, fmt.Errorf("ring: IORING_REGISTER_PROBE: %w", errno)
	}
	hdr := (*probeHeader)(unsafe.Pointer(&buf[0]))
	out := make([]bool, n)
	for i := 0; i < int(hdr.opsLen) && i < n; i++ {
		op := (*probeOp)(unsafe.Add(unsafe.Pointer(&buf[0]), unsafe.Sizeof(probeHeader{})+uintptr(i)*unsafe.Sizeof(probeOp{})))
		if op.flags&probeOpSupported != 0 {
			out[op.op] = true
		}
	}
	return out, nil
}

// check returns an error wrapping ErrUnavailable that lists every opcode
// and feature of q the kernel lacks, or nil.
func (q Requirement) check(features uint32, supported []bool) error {
	var missing []string
	for _, op := range q.Ops {
		if int(op.Code) >= len(supported) || !supported[op.Code] {
			missing = append(missing, op.Name)
		}
	}
	for _, f := range q.Features {
		if features&f.Bit == 0 {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: kernel lacks %s", ErrUnavailable, strings.Join(missing, ", "))
	}
	return nil
}

const disabledPath = "/proc/sys/kernel/io_uring_disabled"

// disabledSysctl describes kernel.io_uring_disabled when it restricts
// io_uring, and returns "" otherwise.
func disabledSysctl() string {
	raw, err := os.ReadFile(disabledPath)
	if err != nil {
		return ""
	}
	switch strings.TrimSpace(string(raw)) {
	case "1":
		return "kernel.io_uring_disabled=1: only members of kernel.io_uring_group may create rings"
	case "2":
		return "kernel.io_uring_disabled=2: io_uring is disabled"
	}
	return ""
}
