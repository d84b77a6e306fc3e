package competitors

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// TimeSplitter is the capability to say where the client's requests spent
// their time, summed over every request so far: the time to the answer's
// head, the server's own share of it when the server says (a
// Server-Timing header), and the transfer of the answer's body. A reader
// takes differences over a window; what is left of an operation's time is
// the client's own work (iceberg-go building the table from the answer).
type TimeSplitter interface {
	TimeSplit() TimeSplit
}

// TimeSplit is a TimeSplitter's running sums.
type TimeSplit struct {
	Requests int64
	// Head is the time from sending a request to reading its answer's
	// head (time to first byte, request upload included).
	Head time.Duration
	// Server is the sum of the servers' own Server-Timing durations, over
	// ServerTimed requests (those whose answer carried one).
	Server      time.Duration
	ServerTimed int64
	// Body is the time from the answer's head to the end of its body.
	Body time.Duration
}

// reqTiming accumulates a TimeSplit. Safe for concurrent use.
type reqTiming struct {
	requests, head, server, serverTimed, body atomic.Int64
}

// TimeSplit returns the sums so far.
func (t *reqTiming) TimeSplit() TimeSplit {
	return TimeSplit{
		Requests: t.requests.Load(), Head: time.Duration(t.head.Load()),
		Server: time.Duration(t.server.Load()), ServerTimed: t.serverTimed.Load(),
		Body: time.Duration(t.body.Load()),
	}
}

// observe times one round trip of rt: resp's head arrived at headAt,
// the request was sent at start; the body's time is added when it ends.
func (t *reqTiming) observe(start, headAt time.Time, resp *http.Response) {
	t.requests.Add(1)
	t.head.Add(int64(headAt.Sub(start)))
	if d, ok := serverTiming(resp.Header.Get("Server-Timing")); ok {
		t.server.Add(int64(d))
		t.serverTimed.Add(1)
	}
	resp.Body = &timedBody{ReadCloser: resp.Body, t: t, headAt: headAt}
}

// serverTiming sums the dur= values of a Server-Timing header
// ("app;dur=0.153, db;dur=1.2"), in milliseconds.
func serverTiming(h string) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	var total float64
	found := false
	for metric := range strings.SplitSeq(h, ",") {
		for param := range strings.SplitSeq(metric, ";") {
			v, ok := strings.CutPrefix(strings.TrimSpace(param), "dur=")
			if !ok {
				continue
			}
			if ms, err := strconv.ParseFloat(strings.Trim(v, `"`), 64); err == nil && ms >= 0 {
				total += ms
				found = true
			}
		}
	}
	return time.Duration(total * float64(time.Millisecond)), found
}

// timedBody adds the time from the answer's head to its end (EOF or
// Close, whichever comes first) to t.
type timedBody struct {
	io.ReadCloser
	t      *reqTiming
	headAt time.Time
	done   bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.end()
	}
	return n, err
}

func (b *timedBody) Close() error {
	b.end()
	return b.ReadCloser.Close()
}

func (b *timedBody) end() {
	if !b.done {
		b.done = true
		b.t.body.Add(int64(time.Since(b.headAt)))
	}
}

// unary is a gRPC client interceptor that times each unary call: its
// whole round trip as the head (a unary reply is not read apart from
// its first byte), and the server's own time from the server-timing
// trailer (the same syntax as the HTTP header) when the server sends one.
func (t *reqTiming) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	var trailer metadata.MD
	start := time.Now()
	err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Trailer(&trailer))...)
	t.requests.Add(1)
	t.head.Add(int64(time.Since(start)))
	if v := trailer.Get(ServerTimingKey); len(v) > 0 {
		if d, ok := serverTiming(strings.Join(v, ",")); ok {
			t.server.Add(int64(d))
			t.serverTimed.Add(1)
		}
	}
	return err
}

// ServerTimingKey is the gRPC trailer our gRPC front reports its own
// time in ("app;dur=MS", as the Server-Timing header of HTTP).
const ServerTimingKey = grpcfront.ServerTimingTrailer
