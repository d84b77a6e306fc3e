package uring

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/nordisk/katbench/internal/phold"
	"github.com/nordisk/katbench/internal/ring"
)

// WaitMode says how a connection waits for io_uring completions.
type WaitMode int

const (
	// WaitAuto is the default: per host, the hold wait (a blocking wait
	// that keeps its P, see waitHold) when the server runs in another
	// process, and WaitPoll when a socket of this process listens on the
	// server's address (or when that cannot be told, or on a single P).
	WaitAuto WaitMode = iota
	// WaitBlock blocks in io_uring_enter: submit and wait in one system
	// call per exchange. The caller's P stays pinned while it waits, so use
	// it only with at most GOMAXPROCS-1 concurrent requests; it is the
	// fastest mode for a single client against a server in another process.
	WaitBlock
	// WaitPoll submits with io_uring_enter and parks the goroutine in Go's
	// poller on the ring descriptor (Ring.SubmitAndPoll).
	WaitPoll
	// waitAdaptive blocks while fewer than GOMAXPROCS requests of the host
	// wait (one P always stays free), and polls otherwise. Experimental:
	// chosen with KATBENCH_URING_WAIT=adaptive.
	waitAdaptive
	// waitHold blocks in a raw io_uring_enter that keeps the goroutine's P
	// (Ring.SubmitAndWaitHolding) while fewer than GOMAXPROCS-1 requests of
	// the process do (one P always stays free for everything else, an
	// in-process server included), and polls otherwise. It saves the
	// scheduler's hand-off of the P around every blocking wait. WaitAuto's
	// choice for a server in another process; KATBENCH_URING_WAIT=hold
	// forces it.
	waitHold
	// waitSQPoll gives every connection's ring to one kernel submission
	// thread (IORING_SETUP_SQPOLL, shared with IORING_SETUP_ATTACH_WQ), so
	// sending costs no system call while that thread is awake, and waits
	// like WaitPoll, in Go's poller. The thread polls for up to sqpollIdle
	// after the last submission before it sleeps. Experimental: chosen
	// with KATBENCH_URING_WAIT=sqpoll.
	waitSQPoll
	// waitShared puts every connection on a lane of a shared ring, whose
	// reaper submits and reaps for all of them (see shared.go): fewer
	// system calls and descriptors than private rings at many
	// connections, not less CPU. Experimental: chosen with
	// KATBENCH_URING_WAIT=shared.
	waitShared
)

// How the default was chosen (BenchmarkInterleaved, 2 cores under heavy
// load from other jobs; ratios are uring/net/http):
//
//   - server in another process, concurrency 1: block p50 ≈ 0.65×, poll
//     ≈ 0.75–0.85×;
//   - server in this process, concurrency 1: poll p50 ≈ 0.8–0.9× with
//     mean latency below block's, because poll lets one thread run client
//     and server back to back while block needs a wake-up per exchange;
//   - concurrency 8 on 2 Ps: block pins both Ps and stalls the process
//     until sysmon retakes them; poll does not.
//
// waitHold (2026-12-01, quiet machine, 3 alternated runs of poll and hold
// with 5 interleaved rounds each): 1.27 system calls per request at c1
// against poll's 5.3; against versitygw it ties poll at c1 and does
// better at c8 (uring/http 1.09–1.26× against 0.93–1.04×), but with the
// server in this process it is 0.39–0.68× net/http (the server's
// goroutines lose the P the wait holds and need a thread woken per
// exchange), so WaitAuto gives it only to servers in other processes.
//
// WaitAuto's per-host choice (2026-12-01, quiet machine, one run each of
// poll and hold forced, 10 interleaved rounds, commit 43d0fb3):
// against versitygw and MinIO hold used 0.53–0.79× net/http's process CPU
// per request and ran at 1.00–1.42× its ops/s (poll: 0.78–1.11× CPU,
// 0.92–1.11× ops/s); with the in-process control store hold was
// 0.56–0.99×, poll 0.82–1.27×. Under two busy loops both held ≥ 0.88×;
// a data-plane append against versitygw was 1.08× (hold) vs 1.10× (poll).
//
// waitSQPoll (2026-12-01, quiet machine, 3 alternated runs of poll and
// sqpoll): io_uring_enter falls below one per request, but the runtime's
// parking of the waiting goroutines stays (2.0–3.7 system calls per
// request at c8, 4.5–6.0 at c1), the thread spins a core while requests
// flow, and uring/http fell to 0.58–0.97× against versitygw and 0.48–0.85×
// against the in-process store, with about 3× the system CPU. Not the
// default.
//
// Mixing the modes on one ring — blocking for some waits and polling for
// others, as an adaptive policy would — measured far worse than either
// (millisecond tails on the polled waits that follow blocked ones), so a
// Transport uses one mode for all its connections.

// WaitEnv names the environment variable a command reads a wait mode
// from (package transport's "uring.wait" setting): "auto" (the same as
// unset), "block", "poll", "adaptive", "hold", "sqpoll" or "shared" (see
// ParseWait). This package does not read it.
const WaitEnv = "KATBENCH_URING_WAIT"

// autoWait is WaitAuto's mode for a server at addr, and why: poll for a
// server in this process (a P held by a waiting client is one its
// goroutines need) or when that cannot be told, hold otherwise — unless
// there is no P to spare for it.
func autoWait(addr netip.AddrPort) (WaitMode, string) {
	here, err := servedHere(addr)
	switch {
	case err != nil:
		return WaitPoll, "poll: cannot tell whether the server is in this process: " + err.Error()
	case here:
		return WaitPoll, "poll: the server listens in this process"
	case phold.Limit() < 1:
		return WaitPoll, "poll: GOMAXPROCS is 1, no P to hold"
	}
	return waitHold, "hold: the server is in another process"
}

// String names the mode as WaitEnv spells it.
func (m WaitMode) String() string {
	switch m {
	case WaitAuto:
		return "auto"
	case WaitBlock:
		return "block"
	case WaitPoll:
		return "poll"
	case waitAdaptive:
		return "adaptive"
	case waitHold:
		return "hold"
	case waitSQPoll:
		return "sqpoll"
	case waitShared:
		return "shared"
	}
	return fmt.Sprintf("WaitMode(%d)", int(m))
}

// ParseWait parses a wait mode as String spells it: "" or "auto" is
// WaitAuto; "poll", "block", "adaptive", "hold", "sqpoll" the others. An
// unknown name is an error naming it, so a program can refuse it before
// measuring anything instead of quietly polling.
func ParseWait(s string) (WaitMode, error) {
	switch s {
	case "", "auto":
		return WaitAuto, nil
	case "poll":
		return WaitPoll, nil
	case "block":
		return WaitBlock, nil
	case "adaptive":
		return waitAdaptive, nil
	case "hold":
		return waitHold, nil
	case "sqpoll":
		return waitSQPoll, nil
	case "shared":
		return waitShared, nil
	}
	return WaitAuto, fmt.Errorf("uring: wait mode %q: want auto, poll, block, adaptive, hold, sqpoll or shared", s)
}

// Describe is the facts of the connections to hostport for a result line
// (package transport's Describer): uring_wait, how requests wait (see
// WaitUsed); nil before the first connection.
func (t *Transport) Describe(hostport string) map[string]any {
	if w := t.WaitUsed(hostport); w != "" {
		return map[string]any{"uring_wait": w}
	}
	return nil
}

// sqpollIdle is how long the shared submission thread polls an empty queue
// before it sleeps (the kernel's granularity is a millisecond).
const sqpollIdle = time.Millisecond

// sqpollShared is the kernel submission thread of the waitSQPoll rings: an
// anchor ring that started it, which every waitSQPoll ring attaches to,
// and the count of those rings. The last one to close closes the anchor,
// which ends the thread, so an idle process keeps neither.
var sqpollShared struct {
	mu     sync.Mutex
	anchor *ring.Ring // nil while no waitSQPoll ring is open
	rings  int        // open waitSQPoll rings, the anchor not counted
}

// sqpollRing returns a new ring served by the shared submission thread,
// starting the thread when none runs. Close it with closeRing.
func sqpollRing(entries uint32) (*ring.Ring, error) {
	s := &sqpollShared
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.anchor == nil {
		a, err := ring.NewSQPoll(1, sqpollIdle, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: SQPOLL ring: %v", ErrUnavailable, err)
		}
		s.anchor = a
	}
	r, err := ring.NewSQPoll(entries, sqpollIdle, s.anchor)
	if err != nil {
		if s.rings == 0 {
			s.anchor.Close()
			s.anchor = nil
		}
		return nil, err
	}
	s.rings++
	return r, nil
}

// closeRing closes a connection's ring; closing the last waitSQPoll ring
// also closes the anchor.
func closeRing(r *ring.Ring) error {
	err := r.Close()
	if !r.SQPoll() || errors.Is(err, ring.ErrClosed) {
		return err
	}
	s := &sqpollShared
	s.mu.Lock()
	if s.rings--; s.rings == 0 && s.anchor != nil {
		s.anchor.Close()
		s.anchor = nil
	}
	s.mu.Unlock()
	return err
}
