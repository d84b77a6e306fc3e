package grpcfront_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// TestTokenExpiresOnTheServersClock drives the token store's clock: a
// token is accepted up to its TTL and refused after it, with no sleeping.
func TestTokenExpiresOnTheServersClock(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	s := serve(t, openEmbedded(t), grpcfront.ServerOptions{Credentials: []grpcfront.Credential{benchCred}, TokenTTL: time.Minute},
		func(srv *grpcfront.Server) { srv.SetTokenClock(func() time.Time { return time.Unix(0, clock.Load()) }) })
	tok := rawToken(t, s.addr, benchCred)
	clock.Add(int64(time.Minute - time.Second))
	cl, err := grpcfront.Dial(context.Background(), s.addr, grpcfront.ClientOptions{Token: tok})
	if err != nil {
		t.Fatalf("token within its TTL refused: %v", err)
	}
	if err := cl.Control(context.Background()); err != nil {
		t.Fatalf("control within the TTL: %v", err)
	}
	clock.Add(int64(2 * time.Second))
	if err := cl.Control(context.Background()); !errors.Is(err, grpcfront.ErrUnauthenticated) {
		t.Fatalf("control after the TTL: %v, want ErrUnauthenticated", err)
	}
	cl.Close()
}
