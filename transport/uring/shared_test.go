package uring

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/ring"
)

// TestAutoHoldMovesToSharedRings: under WaitAuto's hold wait, a request
// alone runs on its connection's private ring; requests beyond laneAbove
// in flight run on lanes of a shared ring, with the right bytes; when the
// load drops, a connection that ran on a lane goes back to its private
// ring; and closing the idle connections closes the shared rings.
func TestAutoHoldMovesToSharedRings(t *testing.T) {
	conc := max(sharedAbove, runtime.GOMAXPROCS(0)) + 4 // laneAbove + 4
	var arrived sync.WaitGroup
	arrived.Add(conc)
	var gate sync.Once
	release := make(chan struct{})
	var held sync.Mutex
	holding := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held.Lock()
		h := holding
		held.Unlock()
		if h && r.URL.Path == "/together" {
			// Hold every request until all conc are in flight, so the
			// pool has conc connections busy at once.
			arrived.Done()
			select {
			case <-release:
			case <-time.After(10 * time.Second):
			}
		}
		fmt.Fprintf(w, "hello %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	tr := newTestTransportMode(t, conc, WaitAuto)
	host := strings.TrimPrefix(srv.URL, "http://")
	p := tr.pool(host)
	// The server runs in this process; pretend it does not, as WaitAuto
	// decides at the first dial.
	p.autoMu.Lock()
	p.autoW, p.autoWhy = waitHold, "hold: the server is in another process"+sharedTier(p.laneAbove)
	p.autoMu.Unlock()
	client := &http.Client{Transport: tr}

	if _, b := do(t, client, http.MethodGet, srv.URL+"/alone", nil); string(b) != "hello /alone" {
		t.Fatalf("body %q", b)
	}
	c := onlyIdle(t, p)
	if c.onLane || c.ring == nil || c.lane != nil {
		t.Fatalf("a request alone: onLane %v, ring %v, lane %v; want the private ring only", c.onLane, c.ring != nil, c.lane != nil)
	}

	held.Lock()
	holding = true
	held.Unlock()
	go func() {
		arrived.Wait()
		gate.Do(func() { close(release) })
	}()
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(srv.URL + "/together")
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, 64)
			n, _ := resp.Body.Read(buf)
			if string(buf[:n]) != "hello /together" {
				errs <- fmt.Errorf("body %q", buf[:n])
			}
		}()
	}
	wg.Wait()
	gate.Do(func() { close(release) })
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	held.Lock()
	holding = false
	held.Unlock()
	p.mu.Lock()
	onLanes := 0
	for _, c := range p.idle {
		if c.onLane && c.lane != nil {
			onLanes++
		}
	}
	idle := len(p.idle)
	p.mu.Unlock()
	if p.laneAbove != conc-4 {
		t.Fatalf("laneAbove %d, want %d", p.laneAbove, conc-4)
	}
	if idle != conc || onLanes < conc-p.laneAbove {
		t.Fatalf("after %d requests at once: %d idle connections, %d on lanes; want %d, at least %d", conc, idle, onLanes, conc, conc-p.laneAbove)
	}

	// One at a time again: the most recently used connection (which ran
	// on a lane) goes back to a private ring.
	if _, b := do(t, client, http.MethodGet, srv.URL+"/again", nil); string(b) != "hello /again" {
		t.Fatalf("body %q", b)
	}
	p.mu.Lock()
	last := p.idle[len(p.idle)-1]
	p.mu.Unlock()
	if last.onLane || last.ring == nil {
		t.Fatalf("a request alone after the burst: onLane %v, private ring %v", last.onLane, last.ring != nil)
	}

	tr.CloseIdleConnections()
	for _, g := range []*sharedGroup{sharedHolding, sharedParking} {
		g.mu.Lock()
		n := len(g.rings)
		g.mu.Unlock()
		if n != 0 {
			t.Errorf("%d shared rings open after the last lane closed", n)
		}
	}
}

// onlyIdle returns the single idle connection of p.
func onlyIdle(t *testing.T, p *hostPool) *conn {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) != 1 {
		t.Fatalf("%d idle connections, want 1", len(p.idle))
	}
	return p.idle[0]
}

// TestDeadSharedRingIsReplaced: when a shared ring's io_uring_enter fails,
// the requests on it fail (they do not hang), and the next request runs
// on a new ring.
func TestDeadSharedRingIsReplaced(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	tr := newTestTransportMode(t, 1, waitShared)
	client := &http.Client{Transport: tr}
	if _, b := do(t, client, http.MethodGet, srv.URL, nil); string(b) != "ok" {
		t.Fatalf("body %q", b)
	}
	fail := func(*ring.Ring, uint32) error { return syscall.EBADF }
	ring.EnterHook.Store(&fail)
	t.Cleanup(func() { ring.EnterHook.Store(nil) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a request on a ring whose enter fails succeeded")
	}
	if ctx.Err() != nil || !errors.Is(err, syscall.EBADF) {
		t.Fatalf("request on a failing ring: %v (context %v), want EBADF before the deadline", err, ctx.Err())
	}
	ring.EnterHook.Store(nil)
	if _, b := do(t, client, http.MethodGet, srv.URL, nil); string(b) != "ok" {
		t.Fatalf("body after the ring failed %q", b)
	}
}
