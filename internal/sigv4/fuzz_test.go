package sigv4

import (
	"errors"
	"net/http"
	"testing"
)

// FuzzVerify: any Authorization, date, hash header and path is refused
// with ErrRefused or accepted, never a panic; and a refusal never quotes
// the secret.
func FuzzVerify(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKIDKATBENCHTEST/20261204/eu-north-1/glue/aws4_request, SignedHeaders=host;x-amz-date, Signature=00",
		"20261204T050000Z", "", "/v1/namespaces/a%1Fb")
	f.Add("AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=Host;;, Signature=", "x", "UNSIGNED-PAYLOAD", "/")
	f.Add("Bearer x", "", "", "/v1/config?x=%zz")
	f.Fuzz(func(t *testing.T, auth, date, hash, path string) {
		v := verifier(t, t0)
		r, err := http.NewRequest("GET", "http://127.0.0.1:19300/", nil)
		if err != nil {
			t.Skip()
		}
		r.URL.Path, r.URL.RawPath = path, ""
		r.Header.Set("Authorization", auth)
		r.Header.Set("X-Amz-Date", date)
		if hash != "" {
			r.Header.Set("X-Amz-Content-Sha256", hash)
		}
		err = v.Verify(r)
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Fatalf("error %v does not wrap ErrRefused", err)
		}
		if err == nil {
			t.Fatalf("a fuzzed request was accepted: %q", auth)
		}
		if err := v.VerifyBuffered(r, []byte(path)); err == nil || !errors.Is(err, ErrRefused) {
			t.Fatalf("buffered: %v", err)
		}
	})
}
