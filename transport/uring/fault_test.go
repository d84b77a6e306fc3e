package uring

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/ring"
	"github.com/nordisk/katbench/internal/testenv"
)

// idleClosingServer is a real net/http server that closes keep-alive
// connections idle for longer than idle, the way S3 servers do.
func idleClosingServer(t *testing.T, idle time.Duration) (*objectServer, *httptest.Server) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &objectServer{ln: &countingListener{Listener: inner}, obj: map[string][]byte{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.Listener = s.ln
	srv.Config.IdleTimeout = idle
	srv.Start()
	s.URL = srv.URL
	t.Cleanup(srv.Close)
	return s, srv
}

// TestIdleTimeoutServerPutWithoutGetBody: after the server's idle timeout
// closed the pooled connection, a PUT whose body has no GetBody (minio-go
// wraps its seekable reader in io.NopCloser) must still succeed — net/http
// does. The dead connection is found by the liveness peek before use.
func TestIdleTimeoutServerPutWithoutGetBody(t *testing.T) {
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) {
			srv, _ := idleClosingServer(t, 30*time.Millisecond)
			tr := newTestTransportMode(t, 1, wm.mode)
			client := &http.Client{Transport: tr}
			put := func(path, data string) {
				t.Helper()
				req, err := http.NewRequest(http.MethodPut, srv.URL+path, io.NopCloser(strings.NewReader(data)))
				if err != nil {
					t.Fatal(err)
				}
				req.ContentLength = int64(len(data))
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("PUT %s: %v", path, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("PUT %s: status %d", path, resp.StatusCode)
				}
			}
			put("/a", "first")
			waitPeerClosed(t, tr) // the server closes the idle conn after 30 ms
			put("/b", "second")
			if _, b := do(t, client, http.MethodGet, srv.URL+"/b", nil); string(b) != "second" {
				t.Fatalf("GET /b = %q", b)
			}
		})
	}
}

// TestRetryRewindsSeekableBody: when the server closes a reused connection
// that looked alive (the close races the request), a PUT whose body is an
// io.Seeker — even behind io.NopCloser, as minio-go sends it — is resent
// whole on a fresh connection.
func TestRetryRewindsSeekableBody(t *testing.T) {
	srv := startObjectServer(t)
	tr := newTestTransport(t, 1)
	// Without the liveness peek the closed connection is reused for sure,
	// as it is when the server's close races the request.
	tr.skipPeek = true
	client := &http.Client{Transport: tr}
	do(t, client, http.MethodPut, srv.URL+"/warm", strings.NewReader("x"))
	srv.ln.closeServerSide()
	waitPeerClosed(t, tr)
	data := bytes.Repeat([]byte("seekable!"), 1000)
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/s", io.NopCloser(bytes.NewReader(data)))
	req.ContentLength = int64(len(data))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("PUT with a seekable body on a closed conn: %v", err)
	}
	resp.Body.Close()
	if _, b := do(t, client, http.MethodGet, srv.URL+"/s", nil); !bytes.Equal(b, data) {
		t.Fatalf("retried PUT stored %d bytes, want %d", len(b), len(data))
	}
}

// TestIdleTimeoutClosesOldConnections: a connection idle for longer than
// Options.IdleTimeout is closed, not reused.
func TestIdleTimeoutClosesOldConnections(t *testing.T) {
	srv := startObjectServer(t)
	testenv.Need(t, "io_uring", Available())
	tr, err := NewTransport(Options{PoolSize: 2, IdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	client := &http.Client{Transport: tr}
	do(t, client, http.MethodPut, srv.URL+"/x", strings.NewReader("v"))
	do(t, client, http.MethodGet, srv.URL+"/x", nil)
	if n := srv.ln.accepts.Load(); n != 1 {
		t.Fatalf("accepts = %d before idling, want 1", n)
	}
	ageIdle(tr, 2*time.Minute) // idle past IdleTimeout, without waiting for it
	do(t, client, http.MethodGet, srv.URL+"/x", nil)
	if n := srv.ln.accepts.Load(); n != 2 {
		t.Fatalf("accepts = %d after idling past IdleTimeout, want 2", n)
	}
}

// TestCancelRacingSubmission: a cancel whose Interrupt submits the owner's
// entries between the owner's publish and its io_uring_enter must end the
// request with context.Canceled, not a bogus submission error.
func TestCancelRacingSubmission(t *testing.T) {
	for _, wm := range waitModes {
		if wm.mode == waitSQPoll || wm.mode == waitShared {
			// No owner's enter submits in these modes (the kernel thread
			// does, or the shared ring's reaper, and a lane's Interrupt
			// submits nothing itself), so the window this test stages
			// does not exist; TestSharedInterrupt in internal/ring covers
			// a lane's.
			continue
		}
		t.Run(wm.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/hang" {
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) })
			client := &http.Client{Transport: newTestTransportMode(t, 1, wm.mode)}
			do(t, client, http.MethodGet, srv.URL+"/ok", nil) // a pooled conn: no dial below

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var fired, inHook atomic.Bool
			hook := func(r *ring.Ring, toSubmit uint32) error {
				if toSubmit == 0 || inHook.Load() || fired.Swap(true) {
					return nil
				}
				inHook.Store(true)
				cancel()
				// The watcher's Interrupt submits everything under the
				// ring's lock, which Interrupted takes too: once it reports
				// true, the watcher's enter has returned.
				for !r.Interrupted() {
					runtime.Gosched()
				}
				inHook.Store(false)
				return nil
			}
			ring.EnterHook.Store(&hook)
			t.Cleanup(func() { ring.EnterHook.Store(nil) })

			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/hang", nil)
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("request succeeded after its context was cancelled")
			}
			if !fired.Load() {
				t.Fatal("the hook never ran: the race was not exercised")
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

// slowReader is a server that sleeps before reading each request's body and
// then answers at once.
func slowReadingServer(t *testing.T, pause time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(pause)
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestResponseHeaderTimeoutStartsAfterWrite: ResponseHeaderTimeout bounds
// the wait for the headers once the request is written, as in net/http; a
// body the server takes longer than that to accept is no timeout.
func TestResponseHeaderTimeoutStartsAfterWrite(t *testing.T) {
	url := slowReadingServer(t, 400*time.Millisecond)
	testenv.Need(t, "io_uring", Available())
	body := bytes.Repeat([]byte("b"), 16<<20) // larger than the socket buffers
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) {
			tr, err := NewTransport(Options{PoolSize: 1, ResponseHeaderTimeout: 200 * time.Millisecond, Wait: wm.mode})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			req, _ := http.NewRequest(http.MethodPut, url+"/slow", bytes.NewReader(body))
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatalf("PUT to a server slow to read: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				t.Fatalf("status %d", resp.StatusCode)
			}
		})
	}
}

// nonReadingServer accepts connections and never reads from them.
func nonReadingServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

// TestSendToNonReadingPeerIsBounded: a request body sent to a peer that
// stops reading ends with the request's deadline (large bodies go out in
// their own send, small ones linked ahead of the first recv).
func TestSendToNonReadingPeerIsBounded(t *testing.T) {
	url := nonReadingServer(t)
	for _, wm := range waitModes {
		for _, size := range []int{16 << 20, 20 << 10} {
			t.Run(fmt.Sprintf("%s/%d", wm.name, size), func(t *testing.T) {
				client := &http.Client{Transport: newTestTransportMode(t, 1, wm.mode)}
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url+"/x", bytes.NewReader(make([]byte, size)))
				done := make(chan error, 1)
				go func() {
					resp, err := client.Do(req)
					if err == nil {
						resp.Body.Close()
					}
					done <- err
				}()
				select {
				case err := <-done:
					if !errors.Is(err, context.DeadlineExceeded) {
						for e := err; e != nil; e = errors.Unwrap(e) {
							t.Logf("%T", e)
						}
						t.Fatalf("err = %v, want context.DeadlineExceeded", err)
					}
				case <-time.After(20 * time.Second): // hang guard only
					t.Fatal("send to a peer that stopped reading did not end with its deadline")
				}
			})
		}
	}
}

// fullBacklog returns the address of a listening socket whose accept queue
// is full and never drained, so a further connect waits for a SYN-ACK that
// never comes.
func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*unix.SockaddrInet4).Port)
	for i := 0; i < 8; i++ { // fill the queue; later dials time out
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("the accept queue never filled; cannot make a connect hang here")
	return ""
}

// TestDialTimeout: DialTimeout bounds a connect that gets no answer.
func TestDialTimeout(t *testing.T) {
	testenv.Need(t, "io_uring", Available())
	addr := fullBacklog(t)
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) {
			tr, err := NewTransport(Options{PoolSize: 1, DialTimeout: 150 * time.Millisecond, Wait: wm.mode})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			done := make(chan error, 1)
			go func() {
				resp, err := (&http.Client{Transport: tr}).Get("http://" + addr + "/")
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("err = %v, want os.ErrDeadlineExceeded", err)
				}
			case <-time.After(20 * time.Second): // hang guard only
				t.Fatal("connect to an unanswering address outlived DialTimeout")
			}
		})
	}
}
