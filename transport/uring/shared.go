package uring

import (
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"slices"
	"sync"

	"github.com/nordisk/katbench/internal/phold"
	"github.com/nordisk/katbench/internal/ring"
)

// The shared wait (waitShared, KATBENCH_URING_WAIT=shared): instead of a
// private ring per connection, every connection of the process has a lane
// of one of a few shared rings (internal/ring.Shared). A request stages its
// send and recv on the lane and parks on the lane's channel; the ring's
// reaper goroutine submits what all parked requests staged in one
// io_uring_enter, waits in that call, reaps the completions in bulk and
// wakes their goroutines. With many requests in flight, one system call
// serves many of them, and the process holds a few rings instead of one
// per connection. Each connection's socket sits in its lane's slot of the
// ring's registered file table while it is open (Lane.UseFile), so its
// operations skip the kernel's descriptor lookup.
//
// It is not the default: measured at 64 and 256 connections against
// versitygw, MinIO and RustFS it made a third to a half of the system calls
// of private rings and held one descriptor per connection instead of
// three, but used more CPU per request than private rings against MinIO
// and RustFS (and less against versitygw), with throughput a tie
// everywhere (docs/transport.md, "Hundreds of connections").
//
// Against a server in another process the reaper keeps its P while it
// waits in the kernel (as the hold wait does), within the same budget of
// GOMAXPROCS-1 P-holding waits; with the server in this process it gives
// its P up, so the server's goroutines can run.

// sharedLanes is the lane capacity of one shared ring: the largest pool
// katbench opens (1,024 connections) fits one ring.
const sharedLanes = 1024

// sharedGroup is the process's shared rings of one kind: with a reaper
// that may keep its P while it waits, or one that never does.
//
// Concurrency: safe for concurrent use.
type sharedGroup struct {
	hold bool

	mu    sync.Mutex
	rings []*ring.Shared
}

var (
	sharedHolding = &sharedGroup{hold: true}
	sharedParking = &sharedGroup{}
)

// sharedRingsWanted is how many rings a group spreads its lanes over: one
// per P that may hold a wait (GOMAXPROCS-1), at least one.
func sharedRingsWanted() int { return max(runtime.GOMAXPROCS(0)-1, 1) }

// lane opens a lane on the group's ring with the fewest lanes, setting up
// another ring while the group has fewer than sharedRingsWanted or all are
// full. Close it with closeLane.
func (g *sharedGroup) lane() (*ring.Lane, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var best *ring.Shared
	bestN := sharedLanes
	for _, s := range g.rings {
		if n := s.Lanes(); n < bestN {
			best, bestN = s, n
		}
	}
	if best == nil || (bestN > 0 && len(g.rings) < sharedRingsWanted()) {
		s, err := ring.NewShared(g.options())
		if err != nil {
			if best == nil {
				return nil, fmt.Errorf("uring: shared ring: %w", err)
			}
		} else {
			g.rings = append(g.rings, s)
			best = s
		}
	}
	l, err := best.NewLane()
	if err != nil && !errors.Is(err, ring.ErrBusy) {
		// The ring died (an io_uring_enter failed): drop it from the group
		// (it keeps its lanes' memory for good) and set up another.
		g.rings = slices.DeleteFunc(g.rings, func(s *ring.Shared) bool { return s == best })
		s, serr := ring.NewShared(g.options())
		if serr != nil {
			return nil, fmt.Errorf("uring: shared ring: %w (the last one failed: %v)", serr, err)
		}
		g.rings = append(g.rings, s)
		l, err = s.NewLane()
	}
	if err != nil {
		return nil, fmt.Errorf("uring: shared ring lane: %w", err)
	}
	return l, nil
}

// options are the group's ring options: a holding group's reaper takes
// its P-holding waits from the process's budget (internal/phold).
func (g *sharedGroup) options() ring.SharedOptions {
	opts := ring.SharedOptions{Lanes: sharedLanes, FixedFiles: true}
	if g.hold {
		limit := phold.Limit()
		opts.Hold = func() bool { return phold.TryHold(limit) }
		opts.Release = phold.Release
	}
	return opts
}

// closeLane closes a lane; the last lane of a ring closes the ring, which
// ends its reaper, so an idle process keeps neither.
func closeLane(l *ring.Lane) error {
	err := l.Close()
	if errors.Is(err, ring.ErrClosed) {
		return err
	}
	s := l.Shared()
	for _, g := range []*sharedGroup{sharedHolding, sharedParking} {
		g.mu.Lock()
		for i, gs := range g.rings {
			if gs == s && s.Lanes() == 0 {
				g.rings = append(g.rings[:i], g.rings[i+1:]...)
				if cerr := s.Close(); cerr != nil && err == nil {
					err = cerr
				}
				break
			}
		}
		g.mu.Unlock()
	}
	return err
}

// newLane opens a lane for a connection to addr: on a holding ring when
// the server is in another process (and a P can be spared), on a parking
// one otherwise. The choice is made once per pool.
func (p *hostPool) newLane(addr netip.AddrPort) (*ring.Lane, error) {
	p.autoMu.Lock()
	if p.lanes == nil {
		p.lanes = sharedParking
		if here, err := servedHere(addr); err == nil && !here && phold.Limit() >= 1 {
			p.lanes = sharedHolding
		}
	}
	g := p.lanes
	p.autoMu.Unlock()
	return g.lane()
}

// laneWanted reports whether a connection waiting in mode w runs its
// requests on a lane of a shared ring rather than a private ring.
func (p *hostPool) laneWanted(w WaitMode) bool { return w == waitShared }

// stepLane is stepOnce on the conn's lane: the queued request bytes are
// staged as a send linked ahead of the main operation, and SubmitAndWait
// returns once both completed (or, after an interrupt, were cancelled and
// reaped), so nothing is in flight when it returns.
func (c *conn) stepLane(kind stepKind, p []byte) (int, error) {
	l := c.lane
	sendLen, err := c.prepStep(l, kind, p)
	if err != nil {
		l.Withdraw()
		return 0, fmt.Errorf("uring: %s: %w", kind, err)
	}
	cqes, err := l.SubmitAndWait()
	if errors.Is(err, ring.ErrInterrupted) || l.Interrupted() {
		return 0, c.stopErr(kind)
	}
	if err != nil {
		return 0, fmt.Errorf("uring: %s: %w", kind, err)
	}
	var sendRes, mainRes int32
	for _, cqe := range cqes {
		switch cqe.UserData {
		case udSend:
			sendRes = cqe.Res
		case udMain:
			mainRes = cqe.Res
		}
	}
	return c.result(kind, p, sendLen, sendRes, mainRes)
}
