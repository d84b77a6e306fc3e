package restserver

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// Body limits. A request body is bounded by its route before a byte of it
// is read: a Content-Length over the limit is answered 413 without calling
// the handler, and a chunked body is cut off at the limit with 413.
const (
	// TokenBodyBytes bounds a POST /v1/oauth/tokens form (grant type,
	// client id and secret, scope: well under 1 KiB in practice). The token
	// endpoint is the one route read before the caller is known.
	TokenBodyBytes = 16 << 10
	// SmallBodyBytes bounds the routes whose bodies are names and
	// properties: create namespace, update namespace properties, rename
	// table, rename view.
	SmallBodyBytes = 1 << 20
	// DefaultMaxBodyBytes bounds the routes that carry metadata — create,
	// commit and register tables and views, multi-table transactions,
	// metrics reports — when Options.MaxBodyBytes is 0. A commit that adds
	// a 10,000-column schema is 0.65 MB (measured).
	DefaultMaxBodyBytes = 16 << 20
	// DefaultMaxInflightBodyBytes is the in-flight body budget when
	// Options.MaxInflightBodyBytes is 0: four commits at the full body
	// limit at once, or thousands of ordinary (few-KB) ones.
	DefaultMaxInflightBodyBytes = 64 << 20
	// DefaultBodyBudgetWait is how long a request waits for room in the
	// budget when Options.BodyBudgetWait is 0, before it is answered 503.
	DefaultBodyBudgetWait = 10 * time.Second
)

// bodyLimit is the largest body route kind k accepts.
func (s *Server) bodyLimit(k routeKind) int64 {
	switch k {
	case routeToken:
		return min(TokenBodyBytes, s.maxBody)
	case routeNamespaces, routeNamespaceProps, routeRename, routeRenameView:
		return min(SmallBodyBytes, s.maxBody)
	default:
		return s.maxBody
	}
}

// bodyBudget bounds the request-body bytes the server holds at once, so
// many concurrent large bodies cannot grow it without bound (decoding a
// body costs several times its size). A request reserves its
// Content-Length (its route's limit when chunked) before its body is read
// and gives it back when its handler returns. Waiters are served in
// arrival order. Safe for concurrent use.
type bodyBudget struct {
	sem     *semaphore.Weighted
	size    int64
	wait    time.Duration // < 0: never wait
	waiting atomic.Int32  // requests waiting for room (seen by tests)
}

func newBodyBudget(size int64, wait time.Duration) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// acquire reserves n bytes (at most the whole budget, so a body larger
// than it can still run alone), waiting up to the budget's wait or ctx's
// end. The error wraps context.DeadlineExceeded or ctx's error (both 503).
func (b *bodyBudget) acquire(ctx context.Context, n int64) (release func(), err error) {
	n = min(n, b.size)
	if n <= 0 {
		return func() {}, nil
	}
	release = func() { b.sem.Release(n) }
	if b.sem.TryAcquire(n) {
		return release, nil
	}
	if b.wait < 0 {
		return nil, fmt.Errorf("%w: in-flight request bodies are over the server's budget of %d bytes; retry", context.DeadlineExceeded, b.size)
	}
	wctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	b.waiting.Add(1)
	err = b.sem.Acquire(wctx, n)
	b.waiting.Add(-1)
	if err != nil {
		return nil, fmt.Errorf("%w: in-flight request bodies stayed over the server's budget of %d bytes for %v; retry", err, b.size, b.wait)
	}
	return release, nil
}

// admitBody bounds r's body by its route's limit and reserves room for it
// in the budget. A Content-Length over the limit is answered 413, and no
// room in time 503 (with Retry-After), before any of the body is read; ok
// is then false. Otherwise the caller must call release when the handler
// returns.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request, k routeKind) (release func(), ok bool) {
	limit := s.bodyLimit(k)
	if r.ContentLength > limit {
		s.writeError(w, r, fmt.Errorf("%w: %d bytes > limit %d for this route", ErrBodyTooLarge, r.ContentLength, limit))
		return nil, false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return func() {}, true
	}
	n := r.ContentLength
	if n < 0 { // chunked: its size is known only once read
		n = limit
	}
	release, err := s.budget.acquire(r.Context(), n)
	if err != nil {
		w.Header().Set("Retry-After", "1")
		s.writeError(w, r, err)
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return release, true
}
