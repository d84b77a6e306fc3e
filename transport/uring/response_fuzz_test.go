package uring

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzResponse feeds arbitrary server bytes to the transport: whatever the
// server sends, a request must end (response or error) without panicking,
// and a body that reads to its end must not be longer than it declared.
func FuzzResponse(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"garbage\r\n\r\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		if Available() != nil {
			t.Skip("io_uring unavailable")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			c.Read(make([]byte, 4096))
			c.Write(reply)
		}()
		tr, err := NewTransport(Options{PoolSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ln.Addr().String()+"/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.ContentLength >= 0 && int64(len(b)) != resp.ContentLength {
			t.Fatalf("body of %d bytes read cleanly, Content-Length %d", len(b), resp.ContentLength)
		}
	})
}
