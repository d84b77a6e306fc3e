package restserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

// countingBody is a request body of n bytes of JSON-ish filler that counts
// the bytes the server read from it.
type countingBody struct {
	left int64
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), b.left))
	for i := range n {
		p[i] = ' '
	}
	b.left -= int64(n)
	b.read.Add(int64(n))
	return n, nil
}

func (b *countingBody) Close() error { return nil }

// newLimitServer is a Server (not listening) with auth on, and a valid
// bearer token for it.
func newLimitServer(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	opts.Credential = "bench:s3cret"
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := New(newEmbedded(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := srv.tokens.Mint(srv.now())
	if err != nil {
		t.Fatal(err)
	}
	return srv, tok
}

// errorType decodes the error model's type from a response body.
func errorType(t *testing.T, body []byte) (string, string) {
	t.Helper()
	var er errorResponse
	if err := json.Unmarshal(body, &er); err != nil {
		t.Fatalf("decode error body %q: %v", body, err)
	}
	return er.Error.Type, er.Error.Message
}

// Every route bounds its body before reading it: a Content-Length over the
// route's limit is 413 with no byte read and nothing changed, an
// unauthenticated body is 401 with no byte read, and a chunked body over
// the limit is cut off at it.
func TestBodyLimitsPerRoute(t *testing.T) {
	srv, tok := newLimitServer(t, Options{})
	commitPath := "/v1/namespaces/db/tables/t"
	cases := []struct {
		name    string
		path    string
		auth    bool
		length  int64 // Content-Length sent; -1 = chunked
		size    int64 // bytes in the body
		want    int
		maxRead int64
	}{
		{"token over its limit", "/v1/oauth/tokens", false, TokenBodyBytes + 1, TokenBodyBytes + 1, 413, 0},
		{"token 12 MB", "/v1/oauth/tokens", false, 12 << 20, 12 << 20, 413, 0},
		{"token chunked over its limit", "/v1/oauth/tokens", false, -1, 12 << 20, 413, TokenBodyBytes + 1},
		{"create namespace over its limit", "/v1/namespaces", true, SmallBodyBytes + 1, SmallBodyBytes + 1, 413, 0},
		{"rename over its limit", "/v1/tables/rename", true, SmallBodyBytes + 1, SmallBodyBytes + 1, 413, 0},
		{"commit over its limit", commitPath, true, DefaultMaxBodyBytes + 1, DefaultMaxBodyBytes + 1, 413, 0},
		{"transaction over its limit", "/v1/transactions/commit", true, DefaultMaxBodyBytes + 1, DefaultMaxBodyBytes + 1, 413, 0},
		{"commit without a token", commitPath, false, 12 << 20, 12 << 20, 401, 0},
		{"create namespace without a token", "/v1/namespaces", false, 12 << 20, 12 << 20, 401, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := &countingBody{left: tc.size}
			req := httptest.NewRequest(http.MethodPost, tc.path, body)
			req.ContentLength = tc.length
			if tc.auth {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tc.want, rec.Body)
			}
			if got := body.read.Load(); got > tc.maxRead {
				t.Fatalf("server read %d body bytes, want ≤ %d", got, tc.maxRead)
			}
			if tc.want == 413 {
				typ, msg := errorType(t, rec.Body.Bytes())
				if typ != "RequestTooLargeException" || !strings.Contains(msg, "limit") {
					t.Fatalf("error %s %q, want RequestTooLargeException naming the limit", typ, msg)
				}
			}
		})
	}
	nss, err := srv.cat.ListNamespaces(context.Background(), nil)
	if err != nil || len(nss) != 0 {
		t.Fatalf("namespaces after refused requests: %v, %v; want none", nss, err)
	}

	// Within the limits the same routes work.
	req := httptest.NewRequest(http.MethodPost, "/v1/oauth/tokens", strings.NewReader("grant_type=client_credentials&client_id=bench&client_secret=s3cret"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("token request within the limit: %d %s", rec.Code, rec.Body)
	}
}

// holdBody is a request body the test feeds by hand: the request holds its
// reservation in the budget while the handler waits to read.
func holdBody() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// createNamespace is a POST /v1/namespaces request for ns with an exact
// Content-Length and the given body reader.
func createNamespace(tok, ns string, body io.Reader, length int64) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/v1/namespaces", body)
	req.ContentLength = length
	req.Header.Set("Authorization", "Bearer "+tok)
	return req
}

// Bodies beyond the in-flight budget wait for room, or, when the server is
// told not to wait, get 503 with Retry-After before any byte is read.
func TestBodyBudget(t *testing.T) {
	const budget = 1000
	nsBody := func(ns string, size int) string {
		s := `{"namespace":["` + ns + `"]}`
		return s + strings.Repeat(" ", size-len(s))
	}
	// start serves req on a goroutine; the recorder is ready when done closes.
	start := func(srv *Server, req *http.Request) (*httptest.ResponseRecorder, chan struct{}) {
		rec, done := httptest.NewRecorder(), make(chan struct{})
		go func() { defer close(done); srv.ServeHTTP(rec, req) }()
		return rec, done
	}
	// holdA starts a request that reserves 800 bytes and blocks reading its
	// body; the returned function sends the rest and waits for its answer.
	holdA := func(t *testing.T, srv *Server, tok string) func() int {
		pr, pw := holdBody()
		body := nsBody("a", 800)
		rec, done := start(srv, createNamespace(tok, "a", pr, int64(len(body))))
		// The write returns once the handler reads: the budget is held.
		if _, err := io.WriteString(pw, body[:1]); err != nil {
			t.Fatal(err)
		}
		return func() int {
			_, _ = io.WriteString(pw, body[1:])
			_ = pw.Close()
			<-done
			return rec.Code
		}
	}

	t.Run("wait", func(t *testing.T) {
		srv, tok := newLimitServer(t, Options{MaxInflightBodyBytes: budget})
		finishA := holdA(t, srv, tok)
		body := nsBody("b", 800)
		recB, doneB := start(srv, createNamespace(tok, "b", strings.NewReader(body), int64(len(body))))
		deadline := time.Now().Add(30 * time.Second)
		for srv.budget.waiting.Load() != 1 {
			if time.Now().After(deadline) {
				t.Fatal("request b never waited for the budget")
			}
			time.Sleep(time.Millisecond)
		}
		if code := finishA(); code != 200 {
			t.Fatalf("request a: %d", code)
		}
		<-doneB
		if recB.Code != 200 {
			t.Fatalf("request b after a finished: %d %s", recB.Code, recB.Body)
		}
	})

	t.Run("no wait", func(t *testing.T) {
		srv, tok := newLimitServer(t, Options{MaxInflightBodyBytes: budget, BodyBudgetWait: -1})
		finishA := holdA(t, srv, tok)
		b := &countingBody{left: 800}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, createNamespace(tok, "b", b, 800))
		if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("over the budget: %d (Retry-After %q) %s, want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
		if b.read.Load() != 0 {
			t.Fatalf("server read %d bytes of a body it refused", b.read.Load())
		}
		if code := finishA(); code != 200 {
			t.Fatalf("request a: %d", code)
		}
		// A body larger than the whole budget still runs, alone.
		big := nsBody("big", 2*budget)
		rec = httptest.NewRecorder()
		srv.ServeHTTP(rec, createNamespace(tok, "big", strings.NewReader(big), int64(len(big))))
		if rec.Code != 200 {
			t.Fatalf("body over the whole budget, alone: %d %s", rec.Code, rec.Body)
		}
		ok, err := srv.cat.CheckNamespaceExists(context.Background(), table.Identifier{"b"})
		if err != nil || ok {
			t.Fatalf("refused request changed the catalog: exists=%v err=%v", ok, err)
		}
	})
}
