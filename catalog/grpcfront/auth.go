package grpcfront

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
)

// ErrBadCredential is returned by ParseCredential for a malformed credential.
var ErrBadCredential = errors.New("bad credential")

// Credential is one client identity the server accepts: the same id:secret
// pair the REST front's --credential takes.
type Credential struct {
	ID     string
	Secret string
}

// ParseCredential parses "id:secret". Both parts must be non-empty; the
// secret may itself contain ':'.
func ParseCredential(s string) (Credential, error) {
	id, secret, ok := strings.Cut(s, ":")
	if !ok || id == "" || secret == "" {
		return Credential{}, fmt.Errorf("%w %q: want id:secret with both parts non-empty", ErrBadCredential, redact(s))
	}
	return Credential{ID: id, Secret: secret}, nil
}

// redact keeps a credential's id and hides its secret in error messages.
func redact(s string) string {
	if id, _, ok := strings.Cut(s, ":"); ok {
		return id + ":***"
	}
	return "***"
}

// DefaultTokenTTL is how long a token from GetToken is valid when
// ServerOptions.TokenTTL is zero.
const DefaultTokenTTL = time.Hour

// tokenStore issues and checks bearer tokens. Tokens are random per server
// instance, so a token from another instance is unknown here. Safe for
// concurrent use; checks take a read lock only.
type tokenStore struct {
	creds map[string]string // id → secret
	ttl   time.Duration
	now   func() time.Time

	mu     sync.RWMutex
	tokens map[string]time.Time // token → expiry

	tokenCalls atomic.Int32 // GetToken calls in flight (≤ MaxTokenCalls)
}

func newTokenStore(creds []Credential, ttl time.Duration) *tokenStore {
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	m := make(map[string]string, len(creds))
	for _, c := range creds {
		m[c.ID] = c.Secret
	}
	return &tokenStore{creds: m, ttl: ttl, now: time.Now, tokens: map[string]time.Time{}}
}

// issue checks id/secret and returns a fresh token and its expiry.
func (s *tokenStore) issue(id, secret string) (string, time.Time, error) {
	want, ok := s.creds[id]
	// Compare even for an unknown id so the timing does not tell ids apart.
	if subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 || !ok {
		return "", time.Time{}, status.Error(codes.Unauthenticated, "unknown credential")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, status.Errorf(codes.Internal, "token: %v", err)
	}
	tok := hex.EncodeToString(b[:])
	now := s.now()
	exp := now.Add(s.ttl)
	s.mu.Lock()
	// Drop expired tokens while holding the lock anyway, so the map stays
	// bounded by the tokens issued within one TTL.
	for t, e := range s.tokens {
		if !now.Before(e) {
			delete(s.tokens, t)
		}
	}
	s.tokens[tok] = exp
	s.mu.Unlock()
	return tok, exp, nil
}

// check validates the "authorization" metadata of an incoming call.
func (s *tokenStore) check(md metadata.MD) error {
	vals := md["authorization"]
	if len(vals) == 0 {
		return status.Error(codes.Unauthenticated, "missing authorization metadata")
	}
	tok, ok := strings.CutPrefix(vals[0], "Bearer ")
	if !ok || tok == "" {
		return status.Error(codes.Unauthenticated, "authorization is not a bearer token")
	}
	s.mu.RLock()
	exp, known := s.tokens[tok]
	s.mu.RUnlock()
	if !known {
		return status.Error(codes.Unauthenticated, "unknown token (not issued by this server)")
	}
	if !s.now().Before(exp) {
		return status.Error(codes.Unauthenticated, "token expired")
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
