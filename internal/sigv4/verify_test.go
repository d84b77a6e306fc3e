package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const (
	testKey    = "AKIDKATBENCHTEST"
	testSecret = "katbench-test-secret-do-not-print"
)

var t0 = time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)

// signed builds a request signed by the AWS SDK's own signer (an
// implementation independent of the verifier) at time at.
func signed(t testing.TB, method, url, body, secret, region, service string, at time.Time, hashHeader bool) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256([]byte(body))
	h := hex.EncodeToString(sum[:])
	if hashHeader {
		r.Header.Set("X-Amz-Content-Sha256", h)
	}
	creds := aws.Credentials{AccessKeyID: testKey, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, h, service, region, at); err != nil {
		t.Fatal(err)
	}
	// As a server sees it: Host from the URL, the body unread.
	r.Host = r.URL.Host
	return r
}

func verifier(t testing.TB, now time.Time) *Verifier {
	t.Helper()
	v, err := New(testKey, testSecret, "eu-north-1", "glue", func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerify(t *testing.T) {
	const u = "http://127.0.0.1:19300/v1/namespaces/a%1Fb/tables/t?pageSize=10&pageToken=YWJj&snapshots=all"
	cases := []struct {
		name, method, body, secret, region, service string
		at                                          time.Time
		hashHeader                                  bool
		tamper                                      string // replaces the body after signing
		want                                        string // "" accepted, else a substring of the refusal
	}{
		{name: "get", method: "GET", at: t0},
		{name: "post with hash header", method: "POST", body: `{"name":"t"}`, at: t0, hashHeader: true},
		{name: "post without hash header", method: "POST", body: `{"name":"t"}`, at: t0},
		{name: "14 min old", method: "GET", at: t0.Add(-14 * time.Minute)},
		{name: "wrong secret", method: "GET", secret: "another-secret", at: t0, want: "signature does not match"},
		{name: "wrong region", method: "GET", region: "us-east-1", at: t0, want: `region "us-east-1"`},
		{name: "wrong service", method: "GET", service: "s3tables", at: t0, want: `service "s3tables"`},
		{name: "replayed 16 min later", method: "GET", at: t0.Add(-16 * time.Minute), want: "more than 15m0s"},
		{name: "dated 16 min ahead", method: "GET", at: t0.Add(16 * time.Minute), want: "more than 15m0s"},
		{name: "tampered body, hash header", method: "POST", body: `{"name":"t"}`, at: t0, hashHeader: true, tamper: `{"name":"u"}`, want: "does not match the payload hash"},
		{name: "tampered body, no hash header", method: "POST", body: `{"name":"t"}`, at: t0, tamper: `{"name":"u"}`, want: "signature does not match"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			secret, region, service := testSecret, "eu-north-1", "glue"
			if tc.secret != "" {
				secret = tc.secret
			}
			if tc.region != "" {
				region = tc.region
			}
			if tc.service != "" {
				service = tc.service
			}
			r := signed(t, tc.method, u, tc.body, secret, region, service, tc.at, tc.hashHeader)
			body := []byte(tc.body)
			if tc.tamper != "" {
				body = []byte(tc.tamper)
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			v := verifier(t, t0)
			var err error
			if tc.hashHeader || tc.body == "" {
				if err = v.Verify(r); err == nil && r.Body != nil {
					_, err = io.ReadAll(r.Body)
				}
			} else {
				if err = v.Verify(r); err == nil {
					t.Fatal("a body without a signed hash was accepted before it was read")
				}
				err = v.VerifyBuffered(r, body)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatal("accepted")
			case tc.want != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %q, want ErrRefused containing %q", err, tc.want)
			}
			if err != nil && (strings.Contains(err.Error(), testSecret) || strings.Contains(err.Error(), testKey)) {
				t.Fatalf("refusal names the key: %v", err)
			}
		})
	}
}

func TestVerifyUnsigned(t *testing.T) {
	v := verifier(t, t0)
	for name, auth := range map[string]string{
		"none":     "",
		"bearer":   "Bearer abc",
		"no scope": "AWS4-HMAC-SHA256 Credential=" + testKey + ", SignedHeaders=host, Signature=00",
	} {
		r, _ := http.NewRequest("GET", "http://h/v1/config", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		if err := v.Verify(r); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	r := signed(t, "GET", "http://h/v1/config", "", testSecret, "eu-north-1", "glue", t0, false)
	r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), testKey, "AKIDOTHER", 1))
	if err := v.Verify(r); err == nil || !strings.Contains(err.Error(), "unknown access key id") || strings.Contains(err.Error(), "AKIDOTHER") {
		t.Fatalf("unknown key: %v", err)
	}
}

func TestNewRejectsEmpty(t *testing.T) {
	if _, err := New(testKey, "", "r", "s", nil); err == nil {
		t.Fatal("empty secret accepted")
	}
}

// BenchmarkVerify is the server's cost of verifying one signed request:
// a bodiless GET (a loadTable), and a POST whose 1 KiB body is verified
// as a whole (VerifyBuffered, a commit without the payload hash header).
func BenchmarkVerify(b *testing.B) {
	const u = "http://127.0.0.1:8181/v1/namespaces/kb_0/tables/t_00042"
	b.Run("get", func(b *testing.B) {
		r := signed(b, "GET", u, "", testSecret, "eu-north-1", "glue", t0, false)
		v := verifier(b, t0)
		b.ReportAllocs()
		for b.Loop() {
			if err := v.Verify(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("post-1KiB-buffered", func(b *testing.B) {
		body := `{"updates":[` + strings.Repeat(" ", 1000) + `]}`
		r := signed(b, "POST", u, body, testSecret, "eu-north-1", "glue", t0, false)
		v := verifier(b, t0)
		b.ReportAllocs()
		for b.Loop() {
			if err := v.VerifyBuffered(r, []byte(body)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
