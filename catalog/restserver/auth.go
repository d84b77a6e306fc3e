package restserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/auth"
)

// authorize checks the request's SigV4 signature (Options.SigV4; deferred
// as authorizeSigV4 says) or bearer token. It is a no-op when the server
// runs with neither.
func (s *Server) authorize(r *http.Request) (deferred bool, err error) {
	if s.sigv4 != nil {
		return s.authorizeSigV4(r)
	}
	return false, s.authorizeBearer(r)
}

// authorizeBearer checks the request's bearer token when the server has a
// credential.
func (s *Server) authorizeBearer(r *http.Request) error {
	if !s.tokens.Enabled() {
		return nil
	}
	tok, err := auth.BearerToken(r.Header.Get("Authorization"))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnauthorized, err)
	}
	if err := s.tokens.Check(tok, s.now()); err != nil {
		return fmt.Errorf("%w: %v", ErrUnauthorized, err)
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
	if err := s.tokens.Verify(id, secret); err != nil {
		s.writeJSON(w, http.StatusUnauthorized, oauthError{"invalid_client", err.Error()})
		return
	}
	if s.scope != "" && !hasScope(scope, s.scope) {
		s.writeJSON(w, http.StatusBadRequest, oauthError{"invalid_scope", fmt.Sprintf("scope must include %q", s.scope)})
		return
	}
	tok, err := s.tokens.Mint(s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	expires := int64((s.tokens.TTL() + time.Second - 1) / time.Second) // never 0: that reads as "no expiry"
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
