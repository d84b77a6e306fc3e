// Package phold is the process's budget of P-holding waits: goroutines
// that block in a raw system call (one the Go scheduler is not told of),
// so their P stays with them instead of being handed to another thread.
//
// Such a wait saves the scheduler's hand-off around it, but while it lasts
// its P runs nothing else — and a P that never reaches the scheduler's
// idle step never polls the network either. When every P holds, a
// goroutine parked in Go's poller waits for sysmon's forced poll, up to
// 10 ms. So a holder takes a place here first — io_uring's hold wait and
// its shared ring's reaper do, the open-loop pacer's precise sleep only
// with its sleepWithinBudget switch (off: docs/transport.md, "Who polls
// the network") — and at most Limit, GOMAXPROCS-1, hold at once: one P
// stays free of them to run and poll for everything else.
package phold

import (
	"runtime"
	"sync/atomic"
)

var held atomic.Int32

// Limit is how many P-holding waits the process allows at once:
// GOMAXPROCS-1, 0 on a single P. It reads GOMAXPROCS, which takes a
// scheduler lock: call it once per pool or run, not per wait.
func Limit() int32 { return int32(runtime.GOMAXPROCS(0) - 1) }

// TryHold takes a place when fewer than limit are held and says whether it
// did; the caller that got one gives it back with Release when its wait
// ends. A caller refused waits the ordinary way (a system call the
// scheduler is told of, or Go's poller).
func TryHold(limit int32) bool {
	for {
		n := held.Load()
		if n >= limit {
			return false
		}
		if held.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release gives back a place TryHold took.
func Release() { held.Add(-1) }

// Held is how many places are taken now.
func Held() int32 { return held.Load() }
