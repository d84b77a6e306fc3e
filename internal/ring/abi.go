package ring

import "unsafe"

// Kernel ABI of io_uring (include/uapi/linux/io_uring.h). Only what this
// package uses is spelled out.

// Opcodes.
const (
	opNop         = 0
	opFsync       = 3
	opPollAdd     = 6
	opAsyncCancel = 14
	opLinkTimeout = 15
	opConnect     = 16
	opClose       = 19
	opSend        = 26
	opRecv        = 27
)

// SQE flags (sqe.flags).
const (
	// FlagDrain starts this SQE only after every SQE submitted before it
	// completed, and starts none submitted after it before it completed.
	FlagDrain uint8 = 1 << 1
	// FlagLink links this SQE to the next one: the next starts only after
	// this one completes successfully, and is cancelled otherwise.
	FlagLink uint8 = 1 << 2
)

// Feature bits reported by io_uring_setup in params.features.
const (
	FeatSingleMmap   uint32 = 1 << 0
	FeatNoDrop       uint32 = 1 << 1
	FeatSubmitStable uint32 = 1 << 2
	FeatFastPoll     uint32 = 1 << 5
	FeatExtArg       uint32 = 1 << 8
)

// io_uring_enter flags.
const (
	enterGetEvents uint32 = 1 << 0
	enterSQWakeup  uint32 = 1 << 1 // wake a sleeping SQPOLL thread
	enterSQWait    uint32 = 1 << 2 // wait for SQ space (SQPOLL)
)

// SQ ring flags (the kernel's sq.flags word).
const sqNeedWakeup uint32 = 1 << 0 // the SQPOLL thread sleeps: wake it with enterSQWakeup

// mmap offsets.
const (
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)

// io_uring_register opcodes.
const (
	registerFiles       = 2 // IORING_REGISTER_FILES
	registerFilesUpdate = 6 // IORING_REGISTER_FILES_UPDATE
	registerProbe       = 8
)

// flagFixedFile is IOSQE_FIXED_FILE: the SQE's Fd is an index into the
// ring's registered file table.
const flagFixedFile uint8 = 1 << 0

// filesUpdate is struct io_uring_files_update.
type filesUpdate struct {
	offset uint32
	resv   uint32
	fds    uint64 // pointer to an array of int32
}

// probeOpSupported is IO_URING_OP_SUPPORTED in io_uring_probe_op.flags.
const probeOpSupported = 1 << 0

// probeHeader is struct io_uring_probe without its trailing ops array;
// probeOp is one struct io_uring_probe_op.
type probeHeader struct {
	lastOp uint8
	opsLen uint8
	resv   uint16
	resv2  [3]uint32
}

type probeOp struct {
	op    uint8
	resv  uint8
	flags uint16
	resv2 uint32
}

// setup flags.
const (
	setupSQPoll   = 1 << 1
	setupCQSize   = 1 << 3
	setupClamp    = 1 << 4
	setupAttachWQ = 1 << 5
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// SQE is one submission queue entry, laid out exactly as struct io_uring_sqe.
// Fill it with the Prep methods only.
type SQE struct {
	Opcode      uint8
	Flags       uint8
	IOPrio      uint16
	Fd          int32
	Off         uint64
	Addr        uint64
	Len         uint32
	OpFlags     uint32
	UserData    uint64
	BufIndex    uint16
	Personality uint16
	SpliceFdIn  int32
	Addr3       uint64
	pad         uint64
}

// CQE is one completion, laid out as struct io_uring_cqe. Res is the
// operation's result: a count or a negated errno.
type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// timespec is struct __kernel_timespec.
type timespec struct {
	Sec  int64
	Nsec int64
}

// Compile-time layout checks: a wrong size here would corrupt the rings.
var (
	_ [64 - unsafe.Sizeof(SQE{})]struct{}
	_ [unsafe.Sizeof(SQE{}) - 64]struct{}
	_ [16 - unsafe.Sizeof(CQE{})]struct{}
	_ [unsafe.Sizeof(CQE{}) - 16]struct{}
	_ [16 - unsafe.Sizeof(probeHeader{})]struct{}
	_ [8 - unsafe.Sizeof(probeOp{})]struct{}
	_ [120 - unsafe.Sizeof(params{})]struct{}
	_ [unsafe.Sizeof(params{}) - 120]struct{}
)
