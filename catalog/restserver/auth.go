package restserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// tokenStore holds the bearer tokens this server instance minted. Tokens are
// 32 random bytes (base64url), unguessable, valid until their expiry, and
// known only to the instance that minted them. Safe for concurrent use.
type tokenStore struct {
	ttl time.Duration

	mu     sync.RWMutex
	tokens map[string]time.Time // token → expiry
}

func newTokenStore(ttl time.Duration) *tokenStore {
	return &tokenStore{ttl: ttl, tokens: make(map[string]time.Time)}
}

// mint returns a fresh token and its lifetime. Expired tokens are swept on
// every mint, so the map stays bounded by the tokens alive within one TTL.
func (ts *tokenStore) mint(now time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mint token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	ts.mu.Lock()
	for t, exp := range ts.tokens {
		if !now.Before(exp) {
			delete(ts.tokens, t)
		}
	}
	ts.tokens[tok] = now.Add(ts.ttl)
	ts.mu.Unlock()
	return tok, nil
}

// valid reports whether tok was minted here and has not expired.
func (ts *tokenStore) valid(tok string, now time.Time) bool {
	ts.mu.RLock()
	exp, ok := ts.tokens[tok]
	ts.mu.RUnlock()
	return ok && now.Before(exp)
}

// authorize checks the request's bearer token. It is a no-op when the server
// runs without a credential.
func (s *Server) authorize(r *http.Request) error {
	if s.clientID == "" && s.secret == "" {
		return nil
	}
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if h == "" {
		return fmt.Errorf("%w: missing Authorization header", ErrUnauthorized)
	}
	if !ok || !strings.EqualFold(scheme, "bearer") || tok == "" {
		return fmt.Errorf("%w: Authorization must be a Bearer token", ErrUnauthorized)
	}
	if !s.tokens.valid(strings.TrimSpace(tok), s.now()) {
		return fmt.Errorf("%w: unknown or expired token", ErrUnauthorized)
	}
	return nil
}

// oauthError is the spec's OAuthError body for the token endpoint.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// tokenResponse is the spec's OAuthTokenResponse.
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in"`
	IssuedTokenType string `json:"issued_token_type"`
	Scope           string `json:"scope,omitempty"`
}

// handleToken implements POST /v1/oauth/tokens for the client_credentials
// grant. Client credentials come from the form (client_id, client_secret)
// or HTTP Basic auth. When the server has no credential configured, any
// client gets a token (auth is off, so tokens are never checked).
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, TokenBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		s.writeJSON(w, http.StatusBadRequest, oauthError{"invalid_request", "malformed form body"})
		return
	}
	if gt := form.Get("grant_type"); gt != "client_credentials" {
		s.writeJSON(w, http.StatusBadRequest, oauthError{"unsupported_grant_type", fmt.Sprintf("grant_type %q is not supported; use client_credentials", gt)})
		return
	}
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if bid, bsecret, ok := r.BasicAuth(); ok && id == "" && secret == "" {
		id, secret = bid, bsecret
	}
	scope := form.Get("scope")
	if s.clientID != "" || s.secret != "" {
		idOK := subtle.ConstantTimeCompare([]byte(id), []byte(s.clientID)) == 1
		secretOK := subtle.ConstantTimeCompare([]byte(secret), []byte(s.secret)) == 1
		if !idOK || !secretOK {
			s.writeJSON(w, http.StatusUnauthorized, oauthError{"invalid_client", "unknown client or wrong secret"})
			return
		}
	}
	if s.scope != "" && !hasScope(scope, s.scope) {
		s.writeJSON(w, http.StatusBadRequest, oauthError{"invalid_scope", fmt.Sprintf("scope must include %q", s.scope)})
		return
	}
	tok, err := s.tokens.mint(s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	expires := int64((s.tokens.ttl + time.Second - 1) / time.Second) // never 0: that reads as "no expiry"
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, http.StatusOK, tokenResponse{
		AccessToken:     tok,
		TokenType:       "bearer",
		ExpiresIn:       expires,
		IssuedTokenType: "urn:ietf:params:oauth:token-type:access_token",
		Scope:           scope,
	})
}

// hasScope reports whether the space-separated scope list contains want.
func hasScope(scopes, want string) bool {
	for _, s := range strings.Fields(scopes) {
		if s == want {
			return true
		}
	}
	return false
}
