package grpcfront

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
	"github.com/nordisk/katbench/internal/auth"
)

// ErrBadCredential is returned by ParseCredential and NewServer for a
// malformed credential.
var ErrBadCredential = auth.ErrBadCredential

// Credential is one client identity the server accepts. The rule is the
// REST front's (internal/auth): "id:secret", both parts non-empty.
type Credential = auth.Credential

// ParseCredential parses "id:secret". Both parts must be non-empty; the
// secret may itself contain ':'.
func ParseCredential(s string) (Credential, error) { return auth.ParseCredential(s) }

// DefaultTokenTTL is how long a token from GetToken is valid when
// ServerOptions.TokenTTL is zero.
const DefaultTokenTTL = auth.DefaultTTL

// tokenStore issues and checks the bearer tokens of one server (an
// auth.Store on a replaceable clock) and bounds the GetToken calls in
// flight. Safe for concurrent use; checks take a read lock only.
type tokenStore struct {
	store *auth.Store
	now   func() time.Time

	tokenCalls atomic.Int32 // GetToken calls in flight (≤ MaxTokenCalls)
}

func newTokenStore(creds []Credential, ttl time.Duration) (*tokenStore, error) {
	st, err := auth.NewStore(creds, ttl)
	if err != nil {
		return nil, fmt.Errorf("grpcfront: %w", err)
	}
	return &tokenStore{store: st, now: time.Now}, nil
}

// issue checks id/secret and returns a fresh token and its expiry.
func (s *tokenStore) issue(id, secret string) (string, time.Time, error) {
	if err := s.store.Verify(id, secret); err != nil {
		return "", time.Time{}, status.Error(codes.Unauthenticated, "unknown credential")
	}
	now := s.now()
	tok, err := s.store.Mint(now)
	if err != nil {
		return "", time.Time{}, status.Errorf(codes.Internal, "token: %v", err)
	}
	return tok, now.Add(s.store.TTL()), nil
}

// check validates the "authorization" metadata of an incoming call.
func (s *tokenStore) check(md metadata.MD) error {
	var h string
	if vals := md["authorization"]; len(vals) > 0 {
		h = vals[0]
	}
	tok, err := auth.BearerToken(h)
	if err == nil {
		err = s.store.Check(tok, s.now())
	}
	if err != nil {
		return status.Error(codes.Unauthenticated, err.Error())
	}
	return nil
}

// tap admits a new call on its headers alone, before grpc reads its
// message: every call but GetToken needs a valid token, and GetToken, the
// one call read from an unknown caller, is admitted only while fewer than
// MaxTokenCalls are in flight. grpc runs it on the connection's reader
// holding the transport's lock, so it never blocks.
func (s *tokenStore) tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	if info.FullMethodName != catalogv1.CatalogService_GetToken_FullMethodName {
		return ctx, s.check(info.Header)
	}
	if s.tokenCalls.Add(1) > MaxTokenCalls {
		s.tokenCalls.Add(-1)
		return ctx, status.Errorf(codes.ResourceExhausted, "too many GetToken calls in flight (limit %d); retry", MaxTokenCalls)
	}
	// The stream's context ends with the call, however it ends (reply,
	// decode error, reset by the client, server stop).
	context.AfterFunc(ctx, func() { s.tokenCalls.Add(-1) })
	return ctx, nil
}
