package pacer

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/phold"
)

// sleepSlack is the timer slack a pacing sleep asks the kernel for: the
// default 50 µs would make every wake-up up to that late.
const sleepSlack = time.Microsecond

// rawSleepMax bounds how long a pacing sleep holds its P.
const rawSleepMax = time.Millisecond

// preciseSleep sleeps the scheduler goroutine for d, waking within
// microseconds of the deadline. time.Sleep cannot: a timer under 1 ms that
// the Go runtime waits for in its network poller rounds up to a whole
// millisecond when the process is otherwise idle (measured: scheduling error p50 0.45 ms, p99 0.92 ms
// at 3,000/s, BenchmarkOpenLoop3kEmbeddedControl).
//
// So the sleep is a raw nanosleep(2) with the thread's timer slack lowered
// around it: the goroutine keeps its P while it sleeps and runs again the
// moment the kernel wakes it, instead of queueing for a P behind the
// workers (milliseconds on a busy host, measured with a plain syscall).
// With sleepWithinBudget it is raw only while the process's budget of
// P-holding waits (internal/phold, limit of them at once) has a place, and
// an ordinary system call that lets the P go when every place is taken (an
// io_uring hold wait keeps the other P, or there is only one): with every
// P held nothing polls the network until sysmon does, up to 10 ms later
// (docs/transport.md, "Who polls the network"). The goroutine is not locked
// to its thread: a locked goroutine makes every yield between sleeps a
// thread hand-off, which measured far worse at 50,000/s. A long gap is
// slept with time.Sleep up to rawSleepMax before its deadline, so the P
// is held for at most that long.
func preciseSleep(d time.Duration, limit int32) {
	if d > 2*rawSleepMax {
		time.Sleep(d - rawSleepMax)
		return // the caller's next round sleeps what is left
	}
	hold := true
	if sleepWithinBudget {
		if hold = phold.TryHold(limit); hold {
			defer phold.Release()
		}
	}
	old, _, errno := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0)
	set := errno == 0
	if set {
		_, _, errno = unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, uintptr(sleepSlack.Nanoseconds()), 0)
		set = errno == 0
	}
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for nanosleep(&ts, hold) == unix.EINTR { // ts now holds what is left
	}
	if set {
		_, _, _ = unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, old, 0)
	}
}

// nanosleep sleeps for *ts, leaving what is left in *ts when a signal cuts
// it short; hold makes it a raw system call that keeps the P. A test seam.
var nanosleep = func(ts *unix.Timespec, hold bool) unix.Errno {
	p := uintptr(unsafe.Pointer(ts))
	if hold {
		_, _, errno := unix.RawSyscall(unix.SYS_NANOSLEEP, p, p, 0)
		return errno
	}
	_, _, errno := unix.Syscall(unix.SYS_NANOSLEEP, p, p, 0)
	return errno
}
