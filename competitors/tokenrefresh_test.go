package competitors

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog/restserver"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Add(d time.Duration) { c.ns.Add(int64(d)) }
func (c *fakeClock) Set(t time.Time)     { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) clone() *fakeClock   { n := &fakeClock{}; n.ns.Store(c.ns.Load()); return n }

// shortTokenFront serves a fresh catalog over REST with OAuth2 client
// credentials kb:s3cr3t and tokens of ttl on clock.
func shortTokenFront(t *testing.T, ttl time.Duration, clock func() time.Time) string {
	t.Helper()
	return startRESTFront(t, restserver.Options{Credential: "kb:s3cr3t", TokenTTL: ttl, Clock: clock})
}

// dialShortTokens connects the rest competitor to u with the credential
// and puts its token renewals on clock.
func dialShortTokens(t *testing.T, u string, clock func() time.Time) (Competitor, *refreshingToken) {
	t.Helper()
	c, err := newCompetitor(t, "rest", Config{Args: []string{u}, Props: map[string]string{"credential": "kb:s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := c.(*restCompetitor).auth.(*refreshingToken)
	if !ok {
		t.Fatalf("auth is %T, want *refreshingToken", c.(*restCompetitor).auth)
	}
	a.mu.Lock()
	a.now = clock
	a.mu.Unlock()
	return c, a
}

// TestTokensRenewedThroughManyLifetimes: the front mints 5-second tokens;
// a client working through 24 of their lifetimes (time moved by hand, one
// second per step, an operation at every step) renews before each token
// expires: no operation fails, no request is refused, and every lifetime
// brought a renewal.
func TestTokensRenewedThroughManyLifetimes(t *testing.T) {
	clock := newFakeClock()
	u := shortTokenFront(t, 5*time.Second, clock.Now)
	c, a := dialShortTokens(t, u, clock.Now)
	exercise(t, c)
	ctl, _ := As[Controller](c)
	ctx := context.Background()
	before := len(a.AuthRefreshes().Latencies)
	for i := range 120 {
		clock.Add(time.Second)
		var err error
		switch i % 3 {
		case 0:
			_, err = c.Catalog().LoadTable(ctx, table.Identifier{"kb", "t"})
		case 1:
			_, err = c.Catalog().CheckTableExists(ctx, table.Identifier{"kb", "t"})
		default:
			err = ctl.Control(ctx)
		}
		if err != nil {
			t.Fatalf("step %d (%s of fake time): %v", i, time.Duration(i+1)*time.Second, err)
		}
	}
	got := c.(AuthRefresher).AuthRefreshes()
	if n := len(got.Latencies) - before; n < 24 {
		t.Errorf("%d renewals over 24 token lifetimes, want at least 24", n)
	}
	if got.Retries != 0 {
		t.Errorf("%d requests refused for an expired token: renewal came too late", got.Retries)
	}
}

// TestExpiredTokenRefusedIsRenewed: when the server's clock runs ahead of
// the client's (the token expired on the server while the client still
// held it valid), the 401 is answered by a renewal and one resend — the
// operation succeeds, GET and POST alike.
func TestExpiredTokenRefusedIsRenewed(t *testing.T) {
	server := newFakeClock()
	client := server.clone()
	u := shortTokenFront(t, 5*time.Second, server.Now)
	c, a := dialShortTokens(t, u, client.Now)
	exercise(t, c)
	ctx := context.Background()
	for i := range 3 {
		r0 := a.AuthRefreshes()
		server.Add(6 * time.Second) // the client's clock stays: its token looks fresh to it
		if _, err := c.Catalog().LoadTable(ctx, table.Identifier{"kb", "t"}); err != nil {
			t.Fatalf("load %d after the token expired on the server: %v", i, err)
		}
		server.Add(6 * time.Second)
		if err := c.Catalog().CreateNamespace(ctx, table.Identifier{"kb" + string(rune('a'+i))}, nil); err != nil {
			t.Fatalf("create namespace %d after the token expired on the server: %v", i, err)
		}
		r1 := a.AuthRefreshes()
		if r1.Retries-r0.Retries != 2 || len(r1.Latencies)-len(r0.Latencies) != 2 {
			t.Fatalf("round %d: %d resends and %d renewals, want 2 and 2", i, r1.Retries-r0.Retries, len(r1.Latencies)-len(r0.Latencies))
		}
	}
}

// TestRefreshMargin: a fifth of the lifetime, at most 10 s.
func TestRefreshMargin(t *testing.T) {
	for _, tc := range []struct{ life, want time.Duration }{
		{5 * time.Second, time.Second}, {time.Hour, 10 * time.Second}, {time.Second, 200 * time.Millisecond},
	} {
		if got := refreshMargin(tc.life); got != tc.want {
			t.Errorf("refreshMargin(%s) = %s, want %s", tc.life, got, tc.want)
		}
	}
}
