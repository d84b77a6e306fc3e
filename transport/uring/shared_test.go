package uring

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/ring"
)

// TestSharedWaitPutsConnectionsOnOneRing: in the shared wait, 12 requests
// at once run on 12 connections that are all lanes of one shared ring (no
// private rings), with the right bytes; closing the idle connections
// closes the ring.
func TestSharedWaitPutsConnectionsOnOneRing(t *testing.T) {
	const conc = 12
	var arrived sync.WaitGroup
	arrived.Add(conc)
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Hold every request until all are in flight, so the pool has
		// conc connections busy at once.
		arrived.Done()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		fmt.Fprintf(w, "hello %s", r.URL.Path)
	}))
	var closed atomic.Int32 // connections the server saw closed
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	tr := newTestTransportMode(t, conc, waitShared)
	client := &http.Client{Transport: tr}
	go func() {
		arrived.Wait()
		close(release)
	}()
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(fmt.Sprintf("%s/%d", srv.URL, i))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, 64)
			n, _ := resp.Body.Read(buf)
			if want := fmt.Sprintf("hello /%d", i); string(buf[:n]) != want {
				errs <- fmt.Errorf("body %q, want %q", buf[:n], want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	p := tr.pool(strings.TrimPrefix(srv.URL, "http://"))
	p.mu.Lock()
	rings := map[*ring.Shared]bool{}
	private, unfixed := 0, 0
	for _, c := range p.idle {
		if c.ring != nil || !c.onLane || c.lane == nil {
			private++
			continue
		}
		rings[c.lane.Shared()] = true
		if !c.lane.Shared().FixedFiles() {
			unfixed++
		}
	}
	idle := len(p.idle)
	p.mu.Unlock()
	if idle != conc || private != 0 || len(rings) != sharedRingsWanted() {
		t.Fatalf("after %d requests at once: %d idle connections, %d not on a lane, %d shared rings; want %d, 0, %d",
			conc, idle, private, len(rings), conc, sharedRingsWanted())
	}
	if unfixed != 0 {
		t.Errorf("%d connections on a shared ring without a registered file table", unfixed)
	}
	tr.CloseIdleConnections()
	// The sockets close for real: the rings' file tables let them go.
	deadline := time.Now().Add(10 * time.Second)
	for closed.Load() < conc && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := closed.Load(); n != conc {
		t.Errorf("the server saw %d of %d connections closed after CloseIdleConnections", n, conc)
	}
	for _, g := range []*sharedGroup{sharedHolding, sharedParking} {
		g.mu.Lock()
		n := len(g.rings)
		g.mu.Unlock()
		if n != 0 {
			t.Errorf("%d shared rings open after the last lane closed", n)
		}
	}
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
