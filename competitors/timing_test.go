package competitors

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestServerTiming(t *testing.T) {
	for h, want := range map[string]time.Duration{
		"app;dur=0.153":                  153 * time.Microsecond,
		"app;dur=1, db;desc=\"x\";dur=2": 3 * time.Millisecond,
		`cache;dur="0.5"`:                500 * time.Microsecond,
	} {
		got, ok := serverTiming(h)
		if !ok || got != want {
			t.Errorf("serverTiming(%q) = %v, %v; want %v", h, got, ok, want)
		}
	}
	for _, h := range []string{"", "app", "app;desc=x", "app;dur=-1", "app;dur=x"} {
		if got, ok := serverTiming(h); ok {
			t.Errorf("serverTiming(%q) = %v, want none", h, got)
		}
	}
}

// TestRESTTransportCountsAndTimes sends requests through the REST
// competitors' transport to a real HTTP server and checks the byte count
// covers every request and answer, and the timing sums one request each.
func TestRESTTransportCountsAndTimes(t *testing.T) {
	body := make([]byte, 10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Server-Timing", "app;dur=0.25")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	tr := newRESTTransport()
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	for range 3 {
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := tr.wire.WireBytes(); got < 3*int64(len(body)) {
		t.Errorf("wire bytes %d for three answers of %d bytes", got, len(body))
	}
	sp := tr.timing.TimeSplit()
	if sp.Requests != 3 || sp.ServerTimed != 3 || sp.Server != 750*time.Microsecond || sp.Head <= 0 || sp.Body < 0 {
		t.Errorf("time split %+v, want 3 requests, 3 timed by the server summing 750µs", sp)
	}
}

func TestCountingConn(t *testing.T) {
	a, b := net.Pipe()
	w := &wireCount{}
	c := &countingConn{Conn: a, n: &w.n}
	go func() {
		buf := make([]byte, 5)
		_, _ = io.ReadFull(b, buf)
		_, _ = b.Write([]byte("abc"))
	}()
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	if got := w.WireBytes(); got != 8 {
		t.Fatalf("counted %d bytes, want 8", got)
	}
}
