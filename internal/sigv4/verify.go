// Package sigv4 verifies AWS Signature Version 4 on incoming HTTP requests
// (header-signed requests: "Authorization: AWS4-HMAC-SHA256 Credential=…,
// SignedHeaders=…, Signature=…" with X-Amz-Date), the way an AWS service
// front such as Glue's Iceberg REST endpoint checks them. It is written
// from AWS's published description of the signing process: canonical
// request, string to sign, a key derived from the secret by date, region
// and service, and an HMAC-SHA256 signature.
//
// A Verifier holds one access key and its secret and accepts a request
// only when it is signed with that key, for the Verifier's region and
// service, dated within MaxSkew of the Verifier's clock, and — once its
// body is read — carries the body its signature covers. Errors never
// contain the secret, the signature or the access key id.
package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Algorithm is the only signing algorithm accepted.
const Algorithm = "AWS4-HMAC-SHA256"

// MaxSkew is how far a request's X-Amz-Date may be from the verifier's
// clock, either way: AWS's own limit, which also bounds how long a
// captured request can be replayed.
const MaxSkew = 15 * time.Minute

// EmptyPayloadHash is the hex SHA-256 of an empty body.
const EmptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

const (
	amzDateFormat   = "20060102T150405Z"
	scopeDateFormat = "20060102"
	unsignedPayload = "UNSIGNED-PAYLOAD"
)

// ErrRefused is wrapped by every verification failure.
var ErrRefused = errors.New("SigV4 signature refused")

// Verifier checks requests against one key. Safe for concurrent use.
type Verifier struct {
	accessKey, secret string
	region, service   string
	now               func() time.Time
}

// New returns a verifier for the key accessKey/secret, accepting requests
// signed for region and service. now is its clock (time.Now when nil).
func New(accessKey, secret, region, service string, now func() time.Time) (*Verifier, error) {
	if accessKey == "" || secret == "" || region == "" || service == "" {
		return nil, errors.New("sigv4: access key, secret, region and service must all be non-empty")
	}
	if now == nil {
		now = time.Now
	}
	return &Verifier{accessKey: accessKey, secret: secret, region: region, service: service, now: now}, nil
}

// Region and Service are what the verifier accepts in a credential scope.
func (v *Verifier) Region() string  { return v.region }
func (v *Verifier) Service() string { return v.service }

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// authHeader is a parsed Authorization value.
type authHeader struct {
	accessKey, date, region, service string
	signedHeaders                    []string
	signature                        string
}

// CheckAuthorization checks that v is a well-formed SigV4 Authorization
// value (algorithm, credential scope, signed headers, signature) without
// verifying the signature: a request that will be verified once its body
// is read is refused at once when it is not signed at all.
func CheckAuthorization(v string) error {
	_, err := parseAuthorization(v)
	return err
}

func parseAuthorization(v string) (authHeader, error) {
	var a authHeader
	alg, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || alg != Algorithm {
		return a, refused("the Authorization header is not %s (sign the request with SigV4)", Algorithm)
	}
	var cred, signed string
	for part := range strings.SplitSeq(rest, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			cred = val
		case "SignedHeaders":
			signed = val
		case "Signature":
			a.signature = val
		}
	}
	if cred == "" || signed == "" || a.signature == "" {
		return a, refused("the Authorization header lacks Credential, SignedHeaders or Signature")
	}
	scope := strings.Split(cred, "/")
	if len(scope) != 5 || scope[4] != "aws4_request" {
		return a, refused("the credential scope is not KEY/DATE/REGION/SERVICE/aws4_request")
	}
	a.accessKey, a.date, a.region, a.service = scope[0], scope[1], scope[2], scope[3]
	a.signedHeaders = strings.Split(signed, ";")
	return a, nil
}

// Verify checks r's signature over the payload hash r signs in its
// X-Amz-Content-Sha256 header (the empty body's when r has no body and no
// header), before any of the body is read. It then replaces r.Body with a
// reader that fails, wrapping ErrRefused, when the body does not hash to
// that value: the signature covers the body, so a body changed after
// signing is refused when read. A request with a body but without the
// header is refused here: verify it with VerifyBuffered.
func (v *Verifier) Verify(r *http.Request) error {
	a, err := parseAuthorization(r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	claimed := r.Header.Get("X-Amz-Content-Sha256")
	hasBody := r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
	switch {
	case claimed == unsignedPayload:
		return refused("an unsigned payload is not accepted: sign the body")
	case claimed == "" && hasBody:
		return refused("no X-Amz-Content-Sha256 header: the body must be verified as a whole (VerifyBuffered)")
	case claimed == "":
		claimed = EmptyPayloadHash
	}
	if err := v.check(r, a, claimed); err != nil {
		return err
	}
	if hasBody {
		r.Body = &hashedBody{rc: r.Body, h: sha256.New(), want: claimed}
	}
	return nil
}

// VerifyBuffered checks r's signature over body, r's whole body already
// read by the caller.
func (v *Verifier) VerifyBuffered(r *http.Request, body []byte) error {
	a, err := parseAuthorization(r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	actual := hex.EncodeToString(sum[:])
	if claimed := r.Header.Get("X-Amz-Content-Sha256"); claimed != "" && claimed != actual {
		return refused("the body does not match the payload hash the request signed (tampered in transit?)")
	}
	return v.check(r, a, actual)
}

// check verifies everything but the body: key, scope, date and signature
// over the canonical request with payloadHash.
func (v *Verifier) check(r *http.Request, a authHeader, payloadHash string) error {
	if subtle.ConstantTimeCompare([]byte(a.accessKey), []byte(v.accessKey)) != 1 {
		return refused("unknown access key id")
	}
	if a.region != v.region {
		return refused("signed for region %q, this endpoint is in %q", a.region, v.region)
	}
	if a.service != v.service {
		return refused("signed for service %q, this endpoint is %q", a.service, v.service)
	}
	at, err := time.Parse(amzDateFormat, r.Header.Get("X-Amz-Date"))
	if err != nil {
		return refused("no valid X-Amz-Date header (want YYYYMMDDTHHMMSSZ)")
	}
	if at.Format(scopeDateFormat) != a.date {
		return refused("the credential scope's date is not X-Amz-Date's")
	}
	if d := v.now().Sub(at); d > MaxSkew || d < -MaxSkew {
		return refused("request dated %s, %s from this server's clock (more than %s: stale, replayed or a wrong clock)",
			at.Format(time.RFC3339), d.Round(time.Second).Abs(), MaxSkew)
	}
	if !slices.Contains(a.signedHeaders, "host") {
		return refused("the host header is not signed")
	}
	canon, err := canonicalRequest(r, a.signedHeaders, payloadHash)
	if err != nil {
		return err
	}
	scope := strings.Join([]string{a.date, a.region, a.service, "aws4_request"}, "/")
	sum := sha256.Sum256([]byte(canon))
	toSign := Algorithm + "\n" + r.Header.Get("X-Amz-Date") + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	want := hex.EncodeToString(mac(v.signingKey(a.date), toSign))
	if subtle.ConstantTimeCompare([]byte(want), []byte(a.signature)) != 1 {
		return refused("signature does not match (wrong secret key, or the request was changed after signing)")
	}
	return nil
}

// signingKey derives the day's key: HMAC chain over date, region,
// service and "aws4_request", keyed by "AWS4"+secret.
func (v *Verifier) signingKey(date string) []byte {
	k := mac([]byte("AWS4"+v.secret), date)
	k = mac(k, v.region)
	k = mac(k, v.service)
	return mac(k, "aws4_request")
}

func mac(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

// canonicalRequest builds the SigV4 canonical request of r: method, path
// (its escaped form escaped once more, as every service but S3 signs it),
// sorted query, the signed headers' trimmed values, their names, and the
// payload hash.
func canonicalRequest(r *http.Request, signed []string, payloadHash string) (string, error) {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(escape(path, false))
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.Query()))
	b.WriteByte('\n')
	for _, name := range signed {
		if name != strings.ToLower(name) || name == "" {
			return "", refused("signed header names must be lower case")
		}
		var vals []string
		switch name {
		case "host":
			vals = []string{r.Host}
		case "content-length":
			vals = []string{fmt.Sprint(r.ContentLength)}
		default:
			vals = r.Header.Values(name)
			if len(vals) == 0 {
				return "", refused("signed header %q is missing from the request", name)
			}
		}
		b.WriteString(name)
		b.WriteByte(':')
		for i, val := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.Join(strings.Fields(val), " "))
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String(), nil
}

// canonicalQuery is q with keys and each key's values sorted, every byte
// but the unreserved ones percent-encoded.
func canonicalQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		vals := slices.Clone(q[k])
		slices.Sort(vals)
		for _, val := range vals {
			parts = append(parts, escape(k, true)+"="+escape(val, true))
		}
	}
	return strings.Join(parts, "&")
}

// escape percent-encodes every byte of s but A–Z a–z 0–9 - . _ ~ (and '/'
// unless slash is set), upper-case hex.
func escape(s string, slash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		case c == '/' && !slash:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// hashedBody hashes what is read through it and, at EOF, fails unless the
// hash is want.
type hashedBody struct {
	rc   io.ReadCloser
	h    hash.Hash
	want string
	bad  bool
}

func (b *hashedBody) Read(p []byte) (int, error) {
	if b.bad {
		return 0, refused("the body does not match the payload hash the request signed (tampered in transit?)")
	}
	n, err := b.rc.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF {
		if got := hex.EncodeToString(b.h.Sum(nil)); got != b.want {
			b.bad = true
			return n, refused("the body does not match the payload hash the request signed (tampered in transit?)")
		}
	}
	return n, err
}

func (b *hashedBody) Close() error { return b.rc.Close() }
