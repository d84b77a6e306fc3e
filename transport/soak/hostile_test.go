package soak_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/uring"
)

// hostileServer answers every connection with serve, a raw byte script no
// well-behaved HTTP server would send. Closed at cleanup.
type hostileServer struct {
	ln    net.Listener
	serve func(c net.Conn, br *bufio.Reader)
	wg    sync.WaitGroup
}

func startHostile(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hostileServer{ln: ln, serve: serve}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() {
				defer c.Close()
				s.serve(c, bufio.NewReader(c))
			})
		}
	})
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return "http://" + ln.Addr().String()
}

// readRequestHead consumes a request's line and headers (not its body).
func readRequestHead(br *bufio.Reader) error {
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if line == "\r\n" {
			return nil
		}
	}
}

// writeForever writes chunk until the peer goes away.
func writeForever(c net.Conn, chunk []byte) {
	for {
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
}

// outcome is the class of a request's result both transports must agree on.
func outcome(resp *http.Response, body []byte, err error) string {
	switch {
	case err == nil:
		return fmt.Sprintf("status %d body %q", resp.StatusCode, body)
	case errors.Is(err, uring.ErrResponseHeaderTooLarge), strings.Contains(err.Error(), "server response headers exceeded"):
		return "response headers too large"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	default:
		return "other error: " + err.Error()
	}
}

// hostileCase is one hostile server and the request sent to it.
type hostileCase struct {
	name  string
	serve func(c net.Conn, br *bufio.Reader)
	// request builds the request; ctx is canceled when the case ends.
	request func(ctx context.Context, url string) *http.Request
	// deadline, when set, is the request context's timeout: the server
	// never finishes, so it fires mid-header.
	deadline time.Duration
	want     string // outcome class
}

func getRequest(ctx context.Context, url string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/obj", nil)
	return req
}

const bigBody = 16 << 20 // larger than any socket buffer: its send fails

// rstAvoidanceDelay is net/http's server's pause between half-closing a
// connection it answered early and closing it.
const rstAvoidanceDelay = 500 * time.Millisecond

var hostileCases = []hostileCase{
	{
		name: "header line past the limit",
		serve: func(c net.Conn, br *bufio.Reader) {
			_ = readRequestHead(br)
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Big: ")
			writeForever(c, bytes.Repeat([]byte{'a'}, 64<<10))
		},
		request: getRequest,
		want:    "response headers too large",
	},
	{
		name: "endless 100 Continue",
		serve: func(c net.Conn, br *bufio.Reader) {
			_ = readRequestHead(br)
			writeForever(c, []byte(strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 1000)))
		},
		request: getRequest,
		want:    "response headers too large",
	},
	{
		name: "200,000 100 Continue then 200",
		serve: func(c net.Conn, br *bufio.Reader) {
			_ = readRequestHead(br)
			cont := []byte(strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 1000))
			for range 200 {
				if _, err := c.Write(cont); err != nil {
					return
				}
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		},
		request: getRequest,
		want:    "response headers too large",
	},
	{
		name: "a few 1xx then 200",
		serve: func(c net.Conn, br *bufio.Reader) {
			_ = readRequestHead(br)
			_, _ = io.WriteString(c, strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 3)+
				"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
		},
		request: getRequest,
		want:    `status 200 body "ok"`,
	},
	{
		name: "deadline mid-header",
		serve: func(c net.Conn, br *bufio.Reader) {
			_ = readRequestHead(br)
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Sl")
			_, _ = io.Copy(io.Discard, br) // hold the connection until the client leaves
		},
		request:  getRequest,
		deadline: 200 * time.Millisecond,
		want:     "deadline exceeded",
	},
	{
		name: "413 before the body is read, then close",
		serve: func(c net.Conn, br *bufio.Reader) {
			_ = readRequestHead(br)
			_, _ = io.WriteString(c, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbig!")
			// As net/http's server does after an early answer: a FIN,
			// a pause for the client to read the answer, then the close,
			// which, with the body unread, makes the kernel send a reset.
			_ = c.(*net.TCPConn).CloseWrite()
			time.Sleep(rstAvoidanceDelay)
		},
		request: func(ctx context.Context, url string) *http.Request {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url+"/obj", bytes.NewReader(make([]byte, bigBody)))
			return req
		},
		want: `status 413 body "big!"`,
	},
}

// uringWaits are the wait modes io_uring requests run under, as WaitEnv
// names them: every mode the transport has.
var uringWaits = []string{"block", "poll", "adaptive", "hold", "sqpoll", "shared"}

// TestHostileServers sends each hostile case through net/http and through
// io_uring in every wait mode, and asserts the outcome class of each is
// the expected one — the same for both transports. A header flood must
// also leave the client's heap bounded by the header limit, not by what
// the server sent.
func TestHostileServers(t *testing.T) {
	testenv.Need(t, "io_uring", uring.Available())
	type rt struct {
		name string
		wait string // WaitEnv value; "" for net/http
	}
	rts := []rt{{"net/http", ""}}
	for _, w := range uringWaits {
		rts = append(rts, rt{"uring-" + w, w})
	}
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			url := startHostile(t, tc.serve)
			for _, r := range rts {
				t.Run(r.name, func(t *testing.T) {
					kind := transport.HTTP
					opts := transport.Options{PoolSize: 1}
					if r.wait != "" {
						kind = transport.Uring
						opts.Settings = transport.Settings{"uring.wait": r.wait}
					}
					tr, used, fallback, err := transport.New(kind, url, opts)
					if err != nil {
						t.Fatal(err)
					}
					if used != kind {
						testenv.Need(t, "io_uring wait mode "+r.wait, errors.New(fallback))
					}
					if c, ok := tr.(interface{ CloseIdleConnections() }); ok {
						t.Cleanup(c.CloseIdleConnections)
					}
					// Bounds the test if a transport hung; no case waits
					// for it.
					ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(tc.deadline, time.Minute))
					defer cancel()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					resp, err := tr.RoundTrip(tc.request(ctx, url))
					var body []byte
					if err == nil {
						body, err = io.ReadAll(resp.Body)
						resp.Body.Close()
					}
					runtime.ReadMemStats(&after)
					if got := outcome(resp, body, err); got != tc.want {
						t.Fatalf("outcome %q, want %q (err %v)", got, tc.want, err)
					}
					// What the client allocated reading a flood is bounded
					// by the header limit (each 1xx response costs some
					// hundred bytes of garbage per 26 bytes read: ~9 MiB
					// for 1 MiB of them, on both transports), however much
					// the server sent.
					const bound = 32 * uring.DefaultMaxResponseHeaderBytes
					if grew := after.TotalAlloc - before.TotalAlloc; tc.want == "response headers too large" && grew > bound {
						t.Fatalf("client allocated %d bytes reading a header flood, want ≤ %d", grew, bound)
					}
				})
			}
		})
	}
}
