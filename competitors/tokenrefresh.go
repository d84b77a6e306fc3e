package competitors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/apache/iceberg-go/catalog/rest"
	"golang.org/x/oauth2"
)

// AuthRefresher is the capability of a competitor whose client renews
// its credentials during a run (OAuth2 tokens that expire): how often, how
// long each renewal took, and how many requests were sent again after the
// server refused an expired token. The renewals are the client's own work,
// never the catalog's errors; a reader takes differences over a window.
type AuthRefresher interface {
	AuthRefreshes() AuthRefreshes
}

// AuthRefreshes are an AuthRefresher's running totals.
type AuthRefreshes struct {
	// Latencies are the renewals' durations, in the order they ended.
	Latencies []time.Duration
	// Retries counts requests answered 401 for a token the client held
	// and sent again, once, with a fresh one.
	Retries int64
}

// refreshMargin is how long before its expiry a token is renewed: a fifth
// of its lifetime, at most 10 s (golang.org/x/oauth2's fixed 10 s would
// renew a 5 s token on every request).
func refreshMargin(lifetime time.Duration) time.Duration {
	return min(lifetime/5, 10*time.Second)
}

// tokenFetcher fetches one new token (no caching).
type tokenFetcher interface {
	Token() (*oauth2.Token, error)
}

// refreshingToken is a rest.AuthManager over OAuth2 client credentials
// that renews its token before it expires and after the server refuses it.
// One caller renews at a time; while it does, the others keep the old
// token if it is still valid and wait for the new one if not. Safe for
// concurrent use.
type refreshingToken struct {
	fetch tokenFetcher
	now   func() time.Time

	mu        sync.Mutex
	tok       string
	renewAt   time.Time // zero: no expiry
	expiry    time.Time
	renewing  chan struct{} // closed when the renewal in flight ends; nil when none
	latencies []time.Duration
	retries   int64
}

var (
	_ rest.AuthManager = (*refreshingToken)(nil)
	_ AuthRefresher    = (*refreshingToken)(nil)
)

// AuthHeader returns the bearer header of a valid token, renewing it
// first when it is within its refresh margin.
func (a *refreshingToken) AuthHeader() (string, string, error) {
	tok, err := a.token()
	if err != nil {
		return "", "", err
	}
	return "Authorization", "Bearer " + tok, nil
}

func (a *refreshingToken) token() (string, error) {
	for {
		a.mu.Lock()
		now := a.now()
		valid := a.tok != "" && (a.expiry.IsZero() || now.Before(a.expiry))
		fresh := valid && (a.renewAt.IsZero() || now.Before(a.renewAt))
		switch {
		case fresh, valid && a.renewing != nil:
			tok := a.tok
			a.mu.Unlock()
			return tok, nil
		case a.renewing != nil: // expired, another caller renews: wait for it
			ch := a.renewing
			a.mu.Unlock()
			<-ch
			continue
		}
		ch := make(chan struct{})
		a.renewing = ch
		a.mu.Unlock()
		tok, err := a.renew(now)
		close(ch)
		return tok, err
	}
}

// renew fetches a new token and stores it; the caller holds the renewal,
// asked for at start on a's clock.
func (a *refreshingToken) renew(start time.Time) (string, error) {
	wall := time.Now()
	t, err := a.fetch.Token()
	took := time.Since(wall)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.renewing = nil
	if err != nil {
		return "", fmt.Errorf("get token: %w", err)
	}
	if t.AccessToken == "" {
		return "", errors.New("get token: the token endpoint returned no access_token")
	}
	a.tok = t.AccessToken
	a.expiry, a.renewAt = time.Time{}, time.Time{}
	// The lifetime is the answer's expires_in; golang.org/x/oauth2 turns it
	// into a wall-clock Expiry as the answer arrives, so it is read back
	// from there (to the second, as sent) and counted from the request's
	// start on a's own clock: the token is taken to expire no later than
	// it does on the server.
	life := time.Duration(t.ExpiresIn) * time.Second
	if life <= 0 && !t.Expiry.IsZero() {
		life = t.Expiry.Sub(wall.Add(took)).Round(time.Second)
	}
	if life > 0 {
		a.expiry = start.Add(life)
		a.renewAt = a.expiry.Add(-refreshMargin(life))
	}
	a.latencies = append(a.latencies, took)
	return a.tok, nil
}

// refused tells a that the server answered 401 to a request carrying
// header; if that is a's current token, the next caller renews it. It
// reports whether the request is worth sending again.
func (a *refreshingToken) refused(header string) bool {
	if header == "" {
		return false // the request carried no token of ours
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if header == "Bearer "+a.tok {
		a.tok = ""
	}
	a.retries++
	return true
}

// AuthRefreshes returns the totals so far.
func (a *refreshingToken) AuthRefreshes() AuthRefreshes {
	a.mu.Lock()
	defer a.mu.Unlock()
	return AuthRefreshes{Latencies: slices.Clone(a.latencies), Retries: a.retries}
}

// retryTransport sends a request answered 401 again, once, with a fresh
// token: a token that expired in flight (or was revoked) costs a renewal,
// not a failed operation. Requests whose body cannot be replayed get the
// 401 as it is.
type retryTransport struct {
	base http.RoundTripper
	auth *refreshingToken
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil
	}
	if !t.auth.refused(req.Header.Get("Authorization")) {
		return resp, nil
	}
	_, v, aerr := t.auth.AuthHeader()
	if aerr != nil {
		return resp, nil // the 401 says more than a failed renewal would
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		b, berr := req.GetBody()
		if berr != nil {
			return resp, nil
		}
		again.Body = b
	}
	again.Header.Set("Authorization", v)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return t.base.RoundTrip(again)
}

// CloseIdleConnections passes on to the base transport.
func (t *retryTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// contextFetcher adapts a context-taking token request to tokenFetcher.
type contextFetcher struct {
	ctx   context.Context
	fetch func(context.Context) (*oauth2.Token, error)
}

func (f contextFetcher) Token() (*oauth2.Token, error) { return f.fetch(f.ctx) }
