package uring

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// halfHeaderServer answers every request with a status line and a header
// cut mid-line, then holds the connection until the client leaves. written
// receives a value each time the partial header is on the wire.
func halfHeaderServer(t *testing.T) (url string, written <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						break
					}
				}
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Sl")
				w <- struct{}{}
				_, _ = io.Copy(io.Discard, br)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return "http://" + ln.Addr().String(), w
}

// A request stopped while its headers are half read fails with why it was
// stopped — the context's error, or os.ErrDeadlineExceeded for
// ResponseHeaderTimeout — never with what the parser made of the half line.
func TestStopMidHeaderSaysWhy(t *testing.T) {
	testenv.Need(t, "io_uring", Available())
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) {
			url, written := halfHeaderServer(t)

			tr := newTestTransportMode(t, 1, wm.mode)
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-written; cancel() }()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/x", nil)
			_, err := tr.RoundTrip(req)
			if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "malformed") {
				t.Fatalf("canceled mid-header: err = %v, want context.Canceled", err)
			}

			tr2, err := NewTransport(Options{PoolSize: 1, Wait: wm.mode, ResponseHeaderTimeout: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tr2.Close() })
			req, _ = http.NewRequest(http.MethodGet, url+"/y", nil)
			_, err = tr2.RoundTrip(req)
			if !errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "malformed") {
				t.Fatalf("ResponseHeaderTimeout mid-header: err = %v, want os.ErrDeadlineExceeded", err)
			}
		})
	}
}

// Options.MaxResponseHeaderBytes bounds the header bytes read, 1xx
// responses included; within it a response is read as usual.
func TestMaxResponseHeaderBytes(t *testing.T) {
	testenv.Need(t, "io_uring", Available())
	const limit = 4 << 10
	cases := []struct {
		name     string
		tooLarge bool
	}{
		{"within", false},
		{"one long line", true},
		{"many 1xx", true},
	}
	for _, wm := range waitModes {
		t.Run(wm.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/within":
					w.Header().Set("X-A", strings.Repeat("a", limit/2))
				case "/one long line":
					w.Header().Set("X-A", strings.Repeat("a", 2*limit))
				case "/many 1xx":
					for range limit / 20 { // each is over 20 bytes
						w.WriteHeader(http.StatusEarlyHints)
					}
				}
				_, _ = io.WriteString(w, "ok")
			}))
			t.Cleanup(srv.Close)
			tr, err := NewTransport(Options{PoolSize: 1, Wait: wm.mode, MaxResponseHeaderBytes: limit})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tr.Close() })
			for _, tc := range cases {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/"+strings.ReplaceAll(tc.name, " ", "%20"), nil)
				resp, err := tr.RoundTrip(req)
				if tc.tooLarge {
					if !errors.Is(err, ErrResponseHeaderTooLarge) {
						t.Fatalf("%s: err = %v, want ErrResponseHeaderTooLarge", tc.name, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "ok" {
					t.Fatalf("%s: body %q", tc.name, b)
				}
			}
		})
	}
}
