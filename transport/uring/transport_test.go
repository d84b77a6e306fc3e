package uring

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/ring"
	"github.com/nordisk/katbench/internal/testenv"
)

// countingListener counts accepted connections and remembers them, so a
// test can close the server's side of an idle connection.
type countingListener struct {
	net.Listener
	accepts atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepts.Add(1)
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

// closeServerSide closes the server's end of every accepted connection.
func (l *countingListener) closeServerSide() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

// objectServer is a real net/http server on loopback storing PUT bodies in
// memory and serving them on GET/HEAD; /chunked/N streams N random-ish
// bytes in chunks (no Content-Length), /echo answers POST with its body.
type objectServer struct {
	URL string
	ln  *countingListener
	mu  sync.Mutex
	obj map[string][]byte
}

func startObjectServer(t testing.TB) *objectServer {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &objectServer{ln: &countingListener{Listener: inner}, obj: map[string][]byte{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.Listener = s.ln
	srv.Start()
	s.URL = srv.URL
	t.Cleanup(srv.Close)
	return s
}

func (s *objectServer) serve(w http.ResponseWriter, r *http.Request) {
	if n, ok := strings.CutPrefix(r.URL.Path, "/chunked/"); ok {
		size, _ := strconv.Atoi(n)
		data := pattern(size)
		for off := 0; off < size; off += 1000 {
			end := min(off+1000, size)
			w.Write(data[off:end])
			w.(http.Flusher).Flush() // forces chunked encoding
		}
		return
	}
	switch r.Method {
	case http.MethodPut, http.MethodPost:
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if r.Method == http.MethodPost {
			w.Write(b)
			return
		}
		s.mu.Lock()
		s.obj[r.URL.Path] = b
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	case http.MethodGet, http.MethodHead:
		s.mu.Lock()
		b, ok := s.obj[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Header().Set("X-Object", "yes")
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func newTestTransport(t testing.TB, pool int) *Transport {
	return newTestTransportMode(t, pool, WaitAuto)
}

func newTestTransportMode(t testing.TB, pool int, mode WaitMode) *Transport {
	t.Helper()
	testenv.Need(t, "io_uring", Available())
	tr, err := NewTransport(Options{PoolSize: pool, Wait: mode})
	if err != nil {
		t.Fatalf("NewTransport: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func do(t *testing.T, c *http.Client, method, url string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return resp, b
}

// waitModes are the ways a connection can wait; the behavioural tests run
// under each.
var waitModes = []struct {
	name string
	mode WaitMode
}{{"block", WaitBlock}, {"poll", WaitPoll}, {"hold", waitHold}, {"sqpoll", waitSQPoll}, {"shared", waitShared}}

func TestRoundTripPayloads(t *testing.T) {
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) { testRoundTripPayloads(t, wm.mode) })
	}
}

func testRoundTripPayloads(t *testing.T, mode WaitMode) {
	srv := startObjectServer(t)
	client := &http.Client{Transport: newTestTransportMode(t, 4, mode)}
	for _, size := range []int{0, 1, 4 << 10, 1<<20 + 7, 8 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			want := make([]byte, size)
			rand.Read(want)
			url := fmt.Sprintf("%s/obj/%d", srv.URL, size)
			if resp, _ := do(t, client, http.MethodPut, url, bytes.NewReader(want)); resp.StatusCode != 200 {
				t.Fatalf("PUT status %d", resp.StatusCode)
			}
			resp, got := do(t, client, http.MethodGet, url, nil)
			if resp.StatusCode != 200 || !bytes.Equal(got, want) {
				t.Fatalf("GET status %d, %d bytes, identical=%v", resp.StatusCode, len(got), bytes.Equal(got, want))
			}
			resp, got = do(t, client, http.MethodHead, url, nil)
			if resp.StatusCode != 200 || len(got) != 0 || resp.ContentLength != int64(size) || resp.Header.Get("X-Object") != "yes" {
				t.Fatalf("HEAD status %d body %d bytes content-length %d", resp.StatusCode, len(got), resp.ContentLength)
			}
		})
	}
	if n := srv.ln.accepts.Load(); n != 1 {
		t.Fatalf("sequential requests used %d connections, want 1", n)
	}
}

// TestStreamedChunkedRequest sends a body of unknown length (chunked on the
// wire) that is produced while it is being sent.
func TestStreamedChunkedRequest(t *testing.T) {
	srv := startObjectServer(t)
	client := &http.Client{Transport: newTestTransport(t, 2)}
	want := make([]byte, 3<<20+5)
	rand.Read(want)
	pr, pw := io.Pipe()
	go func() {
		for off := 0; off < len(want); off += 50000 {
			pw.Write(want[off:min(off+50000, len(want))])
		}
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/streamed", pr)
	req.ContentLength = -1
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, got := do(t, client, http.MethodGet, srv.URL+"/streamed", nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("streamed PUT then GET: %d bytes back of %d, identical=false", len(got), len(want))
	}
}

func TestChunkedResponses(t *testing.T) {
	srv := startObjectServer(t)
	client := &http.Client{Transport: newTestTransport(t, 2)}
	for _, size := range []int{1, 999, 1000, 65537, 1 << 20} {
		resp, got := do(t, client, http.MethodGet, fmt.Sprintf("%s/chunked/%d", srv.URL, size), nil)
		if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
			t.Fatalf("size %d: transfer encoding %v, want chunked", size, resp.TransferEncoding)
		}
		if !bytes.Equal(got, pattern(size)) {
			t.Fatalf("size %d: chunked body differs (%d bytes)", size, len(got))
		}
	}
	if n := srv.ln.accepts.Load(); n != 1 {
		t.Fatalf("chunked responses used %d connections, want 1 (keep-alive after chunked)", n)
	}
}

func TestKeepAliveReuse(t *testing.T) {
	srv := startObjectServer(t)
	client := &http.Client{Transport: newTestTransport(t, 4)}
	do(t, client, http.MethodPut, srv.URL+"/k", bytes.NewReader(pattern(4096)))
	for i := 0; i < 1000; i++ {
		resp, b := do(t, client, http.MethodGet, srv.URL+"/k", nil)
		if resp.StatusCode != 200 || len(b) != 4096 {
			t.Fatalf("request %d: status %d, %d bytes", i, resp.StatusCode, len(b))
		}
	}
	if n := srv.ln.accepts.Load(); n > 4 {
		t.Fatalf("1000 sequential requests on a pool of 4: server accepted %d connections", n)
	}
	// Concurrently too: 8 goroutines share the 4 connections.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 125; i++ {
				resp, err := client.Get(srv.URL + "/k")
				if err != nil {
					errs <- err
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || len(b) != 4096 {
					errs <- fmt.Errorf("read %d bytes: %v", len(b), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := srv.ln.accepts.Load(); n > 4 {
		t.Fatalf("1000 concurrent requests on a pool of 4: server accepted %d connections", n)
	}
}

// goroutineParkedIn reports whether a goroutine whose stack holds frame
// is parked (neither running nor runnable).
func goroutineParkedIn(frame string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(g, frame) && !strings.Contains(head, "[running") && !strings.Contains(head, "[runnable") {
			return true
		}
	}
	return false
}

// ageIdle makes every idle connection of tr look idle for d longer than
// it has been: the pool's idle clock, moved by the test.
func ageIdle(tr *Transport, d time.Duration) {
	for _, p := range tr.allPools() {
		p.mu.Lock()
		for _, c := range p.idle {
			c.idleSince = c.idleSince.Add(-d)
		}
		p.mu.Unlock()
	}
}

// waitPeerClosed polls, with a deadline, until the server's FIN has
// arrived on every idle connection of tr (each reads as closed).
func waitPeerClosed(t testing.TB, tr *Transport) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		open := 0
		for _, p := range tr.allPools() {
			p.mu.Lock()
			for _, c := range p.idle {
				if c.alive() {
					open++
				}
			}
			p.mu.Unlock()
		}
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, %d idle connections still see no FIN from the server", open)
		}
		runtime.Gosched()
	}
}

func TestServerClosedIdleConnection(t *testing.T) {
	srv := startObjectServer(t)
	tr := newTestTransport(t, 1)
	tr.skipPeek = true // reuse the closed conn, as when the close races the request
	client := &http.Client{Transport: tr}
	do(t, client, http.MethodPut, srv.URL+"/x", bytes.NewReader([]byte("payload")))

	srv.ln.closeServerSide()
	waitPeerClosed(t, tr)
	resp, b := do(t, client, http.MethodGet, srv.URL+"/x", nil)
	if resp.StatusCode != 200 || string(b) != "payload" {
		t.Fatalf("GET after server closed idle conn: %d %q", resp.StatusCode, b)
	}
	if n := srv.ln.accepts.Load(); n != 2 {
		t.Fatalf("accepts = %d, want 2 (the retry's fresh connection)", n)
	}

	// PUT with a re-creatable body is retried too.
	srv.ln.closeServerSide()
	waitPeerClosed(t, tr)
	if resp, _ := do(t, client, http.MethodPut, srv.URL+"/y", strings.NewReader("again")); resp.StatusCode != 200 {
		t.Fatalf("PUT retry status %d", resp.StatusCode)
	}
	if _, b := do(t, client, http.MethodGet, srv.URL+"/y", nil); string(b) != "again" {
		t.Fatalf("PUT retried body = %q", b)
	}

	// POST is not idempotent: it must fail, clearly, and not be resent.
	srv.ln.closeServerSide()
	waitPeerClosed(t, tr)
	before := srv.ln.accepts.Load()
	_, err := client.Post(srv.URL+"/echo", "text/plain", strings.NewReader("once"))
	if !errors.Is(err, ErrServerClosed) {
		t.Fatalf("POST on a server-closed conn: err = %v, want ErrServerClosed", err)
	}
	if !strings.Contains(err.Error(), "not idempotent") {
		t.Fatalf("POST error does not say why it was not retried: %v", err)
	}
	if n := srv.ln.accepts.Load(); n != before {
		t.Fatalf("POST was resent on a new connection (accepts %d → %d)", before, n)
	}
	// And the transport still works afterwards.
	if resp, _ := do(t, client, http.MethodPost, srv.URL+"/echo", strings.NewReader("fine")); resp.StatusCode != 200 {
		t.Fatalf("POST on fresh conn: %d", resp.StatusCode)
	}
}

// silentServer accepts connections and reads requests but never answers.
func silentServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { io.Copy(io.Discard, c); c.Close() }() // ends when the client hangs up
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// settle waits for background goroutines to finish (a hang guard, not a
// timing assertion).
func settle(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestNeverAnsweringServer(t *testing.T) {
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) { testNeverAnsweringServer(t, wm.mode) })
	}
}

func testNeverAnsweringServer(t *testing.T, mode WaitMode) {
	url := silentServer(t)
	tr := newTestTransportMode(t, 2, mode)
	client := &http.Client{Transport: tr}
	// warm up anything lazily started (resolver, timers) before counting
	client.Get("http://127.0.0.1:1/") //nolint:errcheck // connection refused is the point
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)

	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/never", nil)
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
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
			case <-time.After(20 * time.Second): // hang guard only
				t.Fatal("request to a silent server did not end with its context")
			}
		})
	}
	tr.CloseIdleConnections()
	if n := settle(goroutines); n > goroutines {
		t.Errorf("goroutines: %d before, %d after", goroutines, n)
	}
	n := openFDs(t)
	for i := 0; i < 100 && n > fds; i++ { // the server closes its side after ours
		time.Sleep(10 * time.Millisecond)
		n = openFDs(t)
	}
	if n > fds { // fewer is fine: a previous test's server may still have been closing
		t.Errorf("open fds: %d before, %d after (each conn is a socket + a ring)", fds, n)
	}
}

func TestResponseHeaderTimeout(t *testing.T) {
	url := silentServer(t)
	testenv.Need(t, "io_uring", Available())
	tr, err := NewTransport(Options{PoolSize: 1, ResponseHeaderTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	_, err = (&http.Client{Transport: tr}).Get(url)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v, want os.ErrDeadlineExceeded", err)
	}
}

func TestBodyCloseEarlyDiscardsConnection(t *testing.T) {
	srv := startObjectServer(t)
	client := &http.Client{Transport: newTestTransport(t, 1)}
	do(t, client, http.MethodPut, srv.URL+"/big", bytes.NewReader(pattern(1<<20)))
	resp, err := client.Get(srv.URL + "/big")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := resp.Body.Read(buf); err == nil {
		t.Fatal("Read after Close succeeded")
	}
	before := srv.ln.accepts.Load()
	if _, b := do(t, client, http.MethodGet, srv.URL+"/big", nil); !bytes.Equal(b, pattern(1<<20)) {
		t.Fatal("GET after early close returned wrong bytes")
	}
	if srv.ln.accepts.Load() != before+1 {
		t.Fatalf("a half-read connection was reused (accepts %d → %d)", before, srv.ln.accepts.Load())
	}
}

func TestRejectsHTTPS(t *testing.T) {
	tr := newTestTransport(t, 1)
	_, err := tr.RoundTrip(httptest.NewRequest(http.MethodGet, "https://127.0.0.1:1/", nil))
	if err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("https request: err = %v", err)
	}
}

// stallingServer answers every request with headers and the first bytes of
// a 100-byte body, then goes silent.
func stallingServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
				io.Copy(io.Discard, c) // until the client hangs up
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return "http://" + ln.Addr().String()
}

func TestBodyCloseDuringRead(t *testing.T) {
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) {
			url := stallingServer(t)
			tr := newTestTransportMode(t, 1, wm.mode)
			fds := openFDs(t)
			resp, err := (&http.Client{Transport: tr}).Get(url)
			if err != nil {
				t.Fatal(err)
			}
			head := make([]byte, 3)
			if _, err := io.ReadFull(resp.Body, head); err != nil || string(head) != "abc" {
				t.Fatalf("first bytes %q %v", head, err)
			}
			// Close once the Read is about to wait in io_uring_enter.
			entered := make(chan struct{})
			var once sync.Once
			hook := func(*ring.Ring, uint32) error { once.Do(func() { close(entered) }); return nil }
			ring.EnterHook.Store(&hook)
			t.Cleanup(func() { ring.EnterHook.Store(nil) })
			readErr := make(chan error, 1)
			go func() {
				_, err := resp.Body.Read(make([]byte, 10)) // blocks: the server stalls
				readErr <- err
			}()
			// Every wait mode but sqpoll and shared waits in io_uring_enter
			// (the hook); those two park the goroutine instead.
			deadline := time.Now().Add(20 * time.Second)
			for waiting := false; !waiting; {
				select {
				case <-entered:
					waiting = true
				case err := <-readErr:
					t.Fatalf("Read returned before the server sent more: %v", err)
				default:
					waiting = goroutineParkedIn("(*body).Read")
				}
				if time.Now().After(deadline) {
					t.Fatal("after 20 s the Read neither entered io_uring_enter nor parked")
				}
				runtime.Gosched()
			}
			ring.EnterHook.Store(nil)
			resp.Body.Close()
			select {
			case err := <-readErr:
				if err == nil {
					t.Fatal("Read interrupted by Close returned no error")
				}
			case <-time.After(20 * time.Second): // hang guard only
				t.Fatal("Close did not end the blocked Read")
			}
			n := openFDs(t)
			for i := 0; i < 100 && n > fds; i++ {
				time.Sleep(10 * time.Millisecond)
				n = openFDs(t)
			}
			if n > fds {
				t.Fatalf("fds %d → %d: the interrupted connection was not closed", fds, n)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	tr := newTestTransport(t, 1)
	fds := openFDs(t)
	_, err = (&http.Client{Transport: tr}).Get("http://" + addr + "/")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("GET to a closed port: %v, want ECONNREFUSED", err)
	}
	// The failed connection's socket is closed; its quiet ring is kept
	// for the next dial until the idle connections are closed.
	if n := openFDs(t); n > fds+1 {
		t.Fatalf("fds %d → %d after a failed connect (at most the kept ring)", fds, n)
	}
	tr.CloseIdleConnections()
	if n := openFDs(t); n > fds {
		t.Fatalf("fds %d → %d after a failed connect and CloseIdleConnections", fds, n)
	}
}

// TestRingReusedAcrossConnectionClose: against a server answering
// Connection: close, the next connection reuses the closed one's ring
// instead of setting up a new one.
func TestRingReusedAcrossConnectionClose(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hi"))
	}))
	srv.Config.SetKeepAlivesEnabled(false)
	srv.Start()
	t.Cleanup(srv.Close)
	tr := newTestTransport(t, 1)
	client := &http.Client{Transport: tr}
	do(t, client, http.MethodGet, srv.URL, nil)
	p := tr.pool(strings.TrimPrefix(srv.URL, "http://"))
	p.mu.Lock()
	kept := slices.Clone(p.kits)
	p.mu.Unlock()
	if len(kept) != 1 {
		t.Fatalf("%d rings kept after a Connection: close exchange, want 1", len(kept))
	}
	resp, b := do(t, client, http.MethodGet, srv.URL, nil)
	if resp.StatusCode != 200 || string(b) != "hi" {
		t.Fatalf("second GET: %d %q", resp.StatusCode, b)
	}
	p.mu.Lock()
	again := slices.Clone(p.kits)
	p.mu.Unlock()
	if len(again) != 1 || again[0].ring != kept[0].ring {
		t.Fatal("the second connection did not reuse the first one's ring")
	}
}

// TestCancelAfterEOFKeepsConnection: a context cancelled after the body was
// read to its end, but before Close (minio-go's GetObject does this), must
// not cost the connection.
func TestCancelAfterEOFKeepsConnection(t *testing.T) {
	srv := startObjectServer(t)
	client := &http.Client{Transport: newTestTransport(t, 1)}
	do(t, client, http.MethodPut, srv.URL+"/c", bytes.NewReader(pattern(4096)))
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/c", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 4096)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			t.Fatal(err)
		}
		if n, err := resp.Body.Read(b); n != 0 || err != io.EOF {
			t.Fatalf("read past the end: %d, %v", n, err)
		}
		// EOF disarmed the context's watcher (its AfterFunc was stopped
		// before it could run), so the cancel below cannot reach the ring:
		// checked on the state itself, not by giving the watcher time.
		bd, ok := resp.Body.(*body)
		if !ok {
			t.Fatalf("response body is %T, want *body", resp.Body)
		}
		if bd.c.stopWake != nil {
			t.Fatal("the context's watcher is still armed after EOF: a cancel would break the connection")
		}
		cancel()
		if bd.c.interrupted() {
			t.Fatal("a cancel after EOF interrupted the connection's ring")
		}
		resp.Body.Close()
	}
	if n := srv.ln.accepts.Load(); n != 1 {
		t.Fatalf("cancel-after-EOF cost connections: %d accepted, want 1", n)
	}
}

// TestGetBodyLandsInCallerBuffer: in WaitBlock mode a 1 MiB body read with
// io.ReadFull takes one recv straight into the caller's slice — the ring
// sees the request's send, the header recv (≤ 16 KiB into bufio) and one
// body recv, so the bulk of the body cannot have been staged in a buffer of
// ours. (WaitPoll reads into the caller's slice too, in socket-sized steps.)
func TestGetBodyLandsInCallerBuffer(t *testing.T) {
	srv := startObjectServer(t)
	tr := newTestTransportMode(t, 1, WaitBlock)
	client := &http.Client{Transport: tr}
	want := pattern(1<<20 + 7)
	do(t, client, http.MethodPut, srv.URL+"/direct", bytes.NewReader(want))

	ring := idleRing(t, tr)
	before := ring.Stats.Reaped.Load()
	resp, err := client.Get(srv.URL + "/direct")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(resp.Body, got); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !bytes.Equal(got, want) {
		t.Fatal("body differs")
	}
	if n := ring.Stats.Reaped.Load() - before; n > 3 {
		t.Fatalf("GET of 1 MiB took %d completions, want ≤ 3 (send, header recv, one body recv)", n)
	}
}

// idleRing returns the ring of the single idle connection of tr.
func idleRing(t *testing.T, tr *Transport) *ring.Ring {
	t.Helper()
	pools := tr.allPools()
	if len(pools) != 1 {
		t.Fatalf("%d host pools, want 1", len(pools))
	}
	p := pools[0]
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) != 1 {
		t.Fatalf("%d idle connections, want 1", len(p.idle))
	}
	return p.idle[0].ring
}

func TestParseWait(t *testing.T) {
	for in, want := range map[string]WaitMode{"": WaitAuto, "auto": WaitAuto, "poll": WaitPoll, "block": WaitBlock, "hold": waitHold, "adaptive": waitAdaptive, "sqpoll": waitSQPoll} {
		if got, err := ParseWait(in); err != nil || got != want {
			t.Errorf("ParseWait(%q) = %v, %v; want %v", in, got, err, want)
		}
		if in != "" && want.String() != in {
			t.Errorf("%v.String() = %q, want %q", want, want.String(), in)
		}
	}
	if _, err := ParseWait("hodl"); err == nil || !strings.Contains(err.Error(), `"hodl"`) {
		t.Fatalf("ParseWait(hodl): %v, want an error naming the value", err)
	}
}

// TestCloseIdleKeepsNoRing: after CloseIdleConnections no ring of the
// closed connections is kept for reuse (each is two descriptors).
func TestCloseIdleKeepsNoRing(t *testing.T) {
	srv := startObjectServer(t)
	tr := newTestTransport(t, 2)
	client := &http.Client{Transport: tr}
	fds := openFDs(t)
	do(t, client, http.MethodPut, srv.URL+"/k", strings.NewReader("v"))
	do(t, client, http.MethodGet, srv.URL+"/k", nil)
	tr.CloseIdleConnections()
	p := tr.pool(strings.TrimPrefix(srv.URL, "http://"))
	p.mu.Lock()
	kits := len(p.kits)
	p.mu.Unlock()
	if kits != 0 {
		t.Fatalf("%d rings kept after CloseIdleConnections", kits)
	}
	n := openFDs(t)
	for i := 0; i < 100 && n > fds; i++ { // the server closes its side after ours
		time.Sleep(10 * time.Millisecond)
		n = openFDs(t)
	}
	if n > fds {
		t.Fatalf("open fds %d → %d after CloseIdleConnections", fds, n)
	}
}

// TestSQPollThreadEndsWithItsRings: waitSQPoll connections share one
// kernel submission thread, started by the first ring and ended when the
// last closes, so a process whose transports are idle keeps no SQPOLL ring
// (or thread) open.
func TestSQPollThreadEndsWithItsRings(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	tr := newTestTransportMode(t, 4, waitSQPoll)
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != "ok" {
					t.Errorf("body %q, %v", b, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	s := &sqpollShared
	s.mu.Lock()
	anchor, rings := s.anchor, s.rings
	s.mu.Unlock()
	if anchor == nil || rings < 1 || rings > 4 {
		t.Fatalf("while connections are pooled: anchor %v, %d rings; want an anchor and 1–4 rings", anchor != nil, rings)
	}
	tr.CloseIdleConnections()
	s.mu.Lock()
	anchor, rings = s.anchor, s.rings
	s.mu.Unlock()
	if anchor != nil || rings != 0 {
		t.Fatalf("after closing every connection: anchor %v, %d rings; want none", anchor != nil, rings)
	}
}
