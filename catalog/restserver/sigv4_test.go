package restserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/nordisk/katbench/internal/sigv4"
)

const (
	v4Key    = "AKIDFRONTTEST"
	v4Secret = "front-secret-never-shown"
)

// TestSigV4Front: the front verifying SigV4 answers a correctly signed
// request, and 403 — with a message saying what was wrong and naming no
// key — to one signed with another secret, for another region, with a
// body changed after signing (with and without the payload hash header),
// or dated more than 15 minutes from the server's clock (a replay); and
// a refused create makes nothing.
func TestSigV4Front(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	v, err := sigv4.New(v4Key, v4Secret, "eu-north-1", "glue", now)
	if err != nil {
		t.Fatal(err)
	}
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{SigV4: v})

	send := func(method, path, body, secret, region string, at time.Time, hashHeader bool, tamper string) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, base+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		sum := sha256.Sum256([]byte(body))
		h := hex.EncodeToString(sum[:])
		if hashHeader {
			req.Header.Set("X-Amz-Content-Sha256", h)
		}
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: v4Key, SecretAccessKey: secret},
			req, h, "glue", region, at); err != nil {
			t.Fatal(err)
		}
		if tamper != "" {
			req.Body = io.NopCloser(strings.NewReader(tamper))
			req.ContentLength = int64(len(tamper))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e errorResponse
		_ = json.Unmarshal(b, &e)
		return resp.StatusCode, e.Error.Message
	}

	ns := func(name string) string { return `{"namespace":["` + name + `"]}` }
	for _, tc := range []struct {
		name, method, path, body, secret, region string
		age                                      time.Duration
		hashHeader                               bool
		tamper                                   string
		code                                     int
		want                                     string
	}{
		{name: "signed get", method: "GET", path: "/v1/config", code: 200},
		{name: "signed create, hash header", method: "POST", path: "/v1/namespaces", body: ns("a"), hashHeader: true, code: 200},
		{name: "signed create, no hash header", method: "POST", path: "/v1/namespaces", body: ns("b"), code: 200},
		{name: "14 min old", method: "GET", path: "/v1/namespaces", age: 14 * time.Minute, code: 200},
		{name: "wrong secret", method: "GET", path: "/v1/namespaces", secret: "other-secret", code: 403, want: "signature does not match"},
		{name: "wrong region", method: "GET", path: "/v1/namespaces", region: "us-east-1", code: 403, want: `region "us-east-1"`},
		{name: "replayed after 16 min", method: "GET", path: "/v1/namespaces", age: 16 * time.Minute, code: 403, want: "more than 15m0s"},
		{name: "tampered body, hash header", method: "POST", path: "/v1/namespaces", body: ns("c"), hashHeader: true, tamper: ns("x"), code: 403, want: "payload hash"},
		{name: "tampered body, no hash header", method: "POST", path: "/v1/namespaces", body: ns("d"), tamper: ns("y"), code: 403, want: "signature does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret, region := v4Secret, "eu-north-1"
			if tc.secret != "" {
				secret = tc.secret
			}
			if tc.region != "" {
				region = tc.region
			}
			code, msg := send(tc.method, tc.path, tc.body, secret, region, now().Add(-tc.age), tc.hashHeader, tc.tamper)
			if code != tc.code || !strings.Contains(msg, tc.want) {
				t.Fatalf("%d %q, want %d saying %q", code, msg, tc.code, tc.want)
			}
			if strings.Contains(msg, v4Secret) || strings.Contains(msg, v4Key) {
				t.Fatalf("the answer names the key: %q", msg)
			}
		})
	}
	var got []string
	nss, err := cat.ListNamespaces(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nss {
		got = append(got, n[0])
	}
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("namespaces %v after the run, want only the signed creates a,b", got)
	}

	// A request without any signature is refused before its body is read.
	req, _ := http.NewRequest("POST", base+"/v1/namespaces", bytes.NewReader([]byte(ns("z"))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("unsigned create: %d, want 403", resp.StatusCode)
	}
	// Nor does it mint OAuth2 tokens that would look like a way in.
	resp, err = http.PostForm(base+"/v1/oauth/tokens", map[string][]string{"grant_type": {"client_credentials"}, "client_id": {"a"}, "client_secret": {"b"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("token request to a SigV4 front: %d, want 403", resp.StatusCode)
	}
}

func TestSigV4AndCredentialExclusive(t *testing.T) {
	v, _ := sigv4.New("a", "b", "r", "s", nil)
	if err := (Options{SigV4: v, Credential: "id:secret"}).Validate(); err == nil {
		t.Fatal("SigV4 with a Credential accepted")
	}
}
