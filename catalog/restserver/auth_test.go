package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go/catalog/rest"
)

// mintToken asks the server at base for a token with the given form values
// and returns the status and the token (empty unless 200).
func mintToken(t *testing.T, base string, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(base+"/v1/oauth/tokens", form)
	if err != nil {
		t.Fatalf("token request: %v", err)
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		t.Fatalf("decode token response: %v", err)
	}
	if resp.StatusCode == http.StatusOK {
		if tr.AccessToken == "" || !strings.EqualFold(tr.TokenType, "bearer") || tr.ExpiresIn <= 0 {
			t.Fatalf("bad token response %+v", tr)
		}
	} else if tr.Error == "" {
		t.Fatalf("status %d without OAuth error body", resp.StatusCode)
	}
	return resp.StatusCode, tr.AccessToken
}

func creds(id, secret, scope string) url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {scope}}
}

func TestAuth(t *testing.T) {
	opts := Options{Credential: "bench:s3cr3t", RequiredScope: "catalog"}
	_, base := startServer(t, newEmbedded(t), opts)
	_, other := startServer(t, newEmbedded(t), opts)

	code, tok := mintToken(t, base, creds("bench", "s3cr3t", "catalog"))
	if code != http.StatusOK {
		t.Fatalf("valid credential: status %d", code)
	}
	_, otherTok := mintToken(t, other, creds("bench", "s3cr3t", "catalog"))
	if otherTok == tok {
		t.Fatal("two servers minted the same token")
	}

	tokenCases := []struct {
		name string
		form url.Values
		want int
	}{
		{"wrong secret", creds("bench", "nope", "catalog"), http.StatusUnauthorized},
		{"wrong id", creds("someone", "s3cr3t", "catalog"), http.StatusUnauthorized},
		{"missing scope", creds("bench", "s3cr3t", "other"), http.StatusBadRequest},
		{"bad grant", url.Values{"grant_type": {"password"}}, http.StatusBadRequest},
	}
	for _, tc := range tokenCases {
		t.Run("token/"+tc.name, func(t *testing.T) {
			if code, _ := mintToken(t, base, tc.form); code != tc.want {
				t.Fatalf("status %d, want %d", code, tc.want)
			}
		})
	}

	routeCases := []struct {
		name, token string
		want        int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"garbage token", "xyz", http.StatusUnauthorized},
		{"other instance's token", otherTok, http.StatusUnauthorized},
		{"valid token", tok, http.StatusOK},
	}
	for _, tc := range routeCases {
		for _, path := range []string{"/v1/config", "/v1/namespaces"} {
			t.Run("route/"+tc.name+path, func(t *testing.T) {
				code, body, hdr := do(t, http.MethodGet, base+path, tc.token, "")
				if code != tc.want {
					t.Fatalf("status %d, want %d: %s", code, tc.want, body)
				}
				if code == http.StatusUnauthorized {
					var er errorResponse
					if err := json.Unmarshal([]byte(body), &er); err != nil || er.Error.Type != "NotAuthorizedException" || er.Error.Code != 401 {
						t.Fatalf("401 body %q is not the spec's error model (%v)", body, err)
					}
					if hdr.Get("WWW-Authenticate") == "" {
						t.Fatal("401 without WWW-Authenticate")
					}
				}
			})
		}
	}

	t.Run("client wrong secret", func(t *testing.T) {
		_, err := rest.NewCatalog(context.Background(), "x", base, rest.WithCredential("bench:nope"))
		if err == nil {
			t.Fatal("NewCatalog with a wrong secret succeeded")
		}
		if !errors.Is(err, rest.ErrOAuthError) && !errors.Is(err, rest.ErrUnauthorized) {
			t.Fatalf("error %v is neither an OAuth nor an unauthorized error", err)
		}
	})
	t.Run("client static foreign token", func(t *testing.T) {
		_, err := rest.NewCatalog(context.Background(), "x", base, rest.WithOAuthToken(otherTok))
		if !errors.Is(err, rest.ErrUnauthorized) {
			t.Fatalf("NewCatalog with another instance's token: %v, want ErrUnauthorized", err)
		}
	})
	t.Run("client static valid token", func(t *testing.T) {
		cl := newClient(t, base, rest.WithOAuthToken(tok))
		if _, err := cl.ListNamespaces(context.Background(), nil); err != nil {
			t.Fatalf("list with valid token: %v", err)
		}
	})
}

// TestTokenExpires drives the server's token clock: a token is good up to
// its TTL and refused after it, with no sleeping.
func TestTokenExpires(t *testing.T) {
	srv, err := New(newEmbedded(t), Options{Credential: "bench:s3cr3t", TokenTTL: time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	srv.now = func() time.Time { return time.Unix(0, clock.Load()) }
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	code, tok := mintToken(t, hs.URL, creds("bench", "s3cr3t", "catalog"))
	if code != http.StatusOK {
		t.Fatalf("mint: %d", code)
	}
	clock.Add(int64(time.Minute - time.Second))
	if code, body, _ := do(t, http.MethodGet, hs.URL+"/v1/config", tok, ""); code != http.StatusOK {
		t.Fatalf("token within its TTL: status %d (%s), want 200", code, body)
	}
	clock.Add(int64(2 * time.Second))
	if code, body, _ := do(t, http.MethodGet, hs.URL+"/v1/config", tok, ""); code != http.StatusUnauthorized {
		t.Fatalf("expired token: status %d (%s), want 401", code, body)
	}
}
