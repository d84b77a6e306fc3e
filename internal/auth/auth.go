// Package auth holds the one credential rule and the one bearer-token store
// of katbench's catalog fronts (catalog/restserver and catalog/grpcfront).
//
// A credential is "id:secret": both parts non-empty, no control characters,
// the secret may itself contain ':' (the id ends at the first one). A
// server configured with credentials mints a token for a client presenting
// one of them and accepts, until it expires, only a token it minted itself:
// tokens are 32 random bytes, unguessable and unknown to any other server
// instance.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Sentinel errors. Messages never contain a secret or a token.
var (
	// ErrBadCredential: a credential that is not "id:secret" with both
	// parts non-empty and no control characters.
	ErrBadCredential = errors.New("bad credential")
	// ErrWrongCredential: an id this server does not know, or its wrong
	// secret (the two are not told apart).
	ErrWrongCredential = errors.New("unknown client or wrong secret")
	// ErrNoToken: no bearer token where one is required.
	ErrNoToken = errors.New("missing bearer token")
	// ErrUnknownToken: a token this server did not mint.
	ErrUnknownToken = errors.New("unknown token (not issued by this server)")
	// ErrExpiredToken: a token this server minted whose lifetime is over.
	ErrExpiredToken = errors.New("token expired")
)

// DefaultTTL is a token's lifetime when a Store is made with ttl ≤ 0.
const DefaultTTL = time.Hour

// Credential is one client identity a server accepts.
type Credential struct {
	ID     string
	Secret string
}

// ParseCredential parses "id:secret" under the rule of the package doc.
// The error names the id, never the secret.
func ParseCredential(s string) (Credential, error) {
	id, secret, _ := strings.Cut(s, ":")
	c := Credential{ID: id, Secret: secret}
	if err := c.Validate(); err != nil {
		return Credential{}, fmt.Errorf("%w %q: %v", ErrBadCredential, redact(s), err)
	}
	return c, nil
}

// Validate checks c under the rule of the package doc. Its error does not
// wrap ErrBadCredential (ParseCredential and the fronts add context).
func (c Credential) Validate() error {
	if c.ID == "" || c.Secret == "" {
		return errors.New("want id:secret with both parts non-empty")
	}
	if strings.ContainsFunc(c.ID+c.Secret, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("control character")
	}
	return nil
}

// redact keeps a credential's id and hides its secret.
func redact(s string) string {
	if id, _, ok := strings.Cut(s, ":"); ok {
		return id + ":***"
	}
	return "***"
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// value (the scheme case-insensitive, surrounding spaces ignored).
func BearerToken(header string) (string, error) {
	if header == "" {
		return "", fmt.Errorf("%w: no authorization", ErrNoToken)
	}
	scheme, tok, _ := strings.Cut(strings.TrimSpace(header), " ")
	if tok = strings.TrimSpace(tok); !strings.EqualFold(scheme, "bearer") || tok == "" {
		return "", fmt.Errorf("%w: authorization is not a bearer token", ErrNoToken)
	}
	return tok, nil
}

// Store checks client credentials and mints and checks the tokens of one
// server instance. A Store without credentials mints tokens for anyone
// (auth off: its caller does not check them). Safe for concurrent use;
// Check takes a read lock only.
type Store struct {
	creds map[string]string // id → secret
	ttl   time.Duration

	mu     sync.RWMutex
	tokens map[string]time.Time // token → expiry
}

// NewStore returns a store accepting creds, minting tokens valid for ttl
// (DefaultTTL when ttl ≤ 0). Each credential must be valid.
func NewStore(creds []Credential, ttl time.Duration) (*Store, error) {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	m := make(map[string]string, len(creds))
	for i, c := range creds {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("credential %d: %w: %v", i, ErrBadCredential, err)
		}
		m[c.ID] = c.Secret
	}
	return &Store{creds: m, ttl: ttl, tokens: map[string]time.Time{}}, nil
}

// TTL is the lifetime of a minted token.
func (s *Store) TTL() time.Duration { return s.ttl }

// Enabled reports whether the store has credentials (auth is on).
func (s *Store) Enabled() bool { return len(s.creds) > 0 }

// Verify reports, as ErrWrongCredential, whether id and secret are not one
// of the store's credentials. The comparison takes the same time for an
// unknown id as for a wrong secret.
func (s *Store) Verify(id, secret string) error {
	if !s.Enabled() {
		return nil
	}
	want, ok := s.creds[id]
	if subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 || !ok {
		return ErrWrongCredential
	}
	return nil
}

// Mint returns a fresh token valid from now for TTL. Expired tokens are
// swept on every mint, so the store holds at most the tokens minted within
// one TTL.
func (s *Store) Mint(now time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, exp := range s.tokens {
		if !now.Before(exp) {
			delete(s.tokens, t)
		}
	}
	s.tokens[tok] = now.Add(s.ttl)
	return tok, nil
}

// Check returns nil when tok was minted by this store and is still valid at
// now, else ErrUnknownToken or ErrExpiredToken.
func (s *Store) Check(tok string, now time.Time) error {
	s.mu.RLock()
	exp, ok := s.tokens[tok]
	s.mu.RUnlock()
	switch {
	case !ok:
		return ErrUnknownToken
	case !now.Before(exp):
		return ErrExpiredToken
	}
	return nil
}
