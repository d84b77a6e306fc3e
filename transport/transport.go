// Package transport picks the byte transport every katbench S3 request goes
// through: Go's net/http ("http") or katbench's own io_uring HTTP/1.1
// transport ("uring", package transport/uring). Both are tuned alike — same
// pool size, keep-alive, HTTP/1.1 only, no compression — so a comparison
// measures the byte path and nothing else.
package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nordisk/katbench/transport/uring"
)

// Kind names a byte transport.
type Kind string

const (
	// HTTP is Go's net/http transport, tuned by NewHTTP.
	HTTP Kind = "http"
	// Uring is katbench's io_uring HTTP/1.1 transport.
	Uring Kind = "uring"
)

// EnvKind is the environment variable ParseKind reads when given "".
const EnvKind = "KATBENCH_TRANSPORT"

// DefaultPoolSize is the keep-alive pool per host when Options.PoolSize is 0.
const DefaultPoolSize = 8

// ErrUnknownKind reports a transport name other than "http" or "uring".
var ErrUnknownKind = errors.New("unknown transport")

// ErrBadEndpoint reports an endpoint New cannot parse.
var ErrBadEndpoint = errors.New("bad endpoint")

// ParseKind parses "http" or "uring" (case-insensitive, spaces trimmed). An
// empty s means: the value of KATBENCH_TRANSPORT, or "http" if that is unset
// or empty too.
func ParseKind(s string) (Kind, error) {
	from := "transport"
	if strings.TrimSpace(s) == "" {
		s, from = os.Getenv(EnvKind), EnvKind
	}
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case "":
		return HTTP, nil
	case HTTP, Uring:
		return k, nil
	}
	return "", fmt.Errorf("%s %q: %w (want %q or %q)", from, s, ErrUnknownKind, HTTP, Uring)
}

// Options tunes both transports identically.
type Options struct {
	// PoolSize is the number of keep-alive connections per host (and the
	// cap on open ones); 0 means DefaultPoolSize.
	PoolSize int
	// Timeout bounds the wait for a response's headers once the request is
	// written; 0 means none (contexts still apply).
	Timeout time.Duration
	// DialTimeout bounds connection setup; 0 means none.
	DialTimeout time.Duration
}

func (o Options) poolSize() int {
	if o.PoolSize <= 0 {
		return DefaultPoolSize
	}
	return o.PoolSize
}

// New returns the RoundTripper for kind talking to endpoint
// (http://host[:port] or https://host[:port]).
//
// For Uring, when io_uring is unavailable here or the endpoint is https, New
// does not fail: it returns the tuned net/http transport, used == HTTP and a
// fallback reason starting with "uring: ", which callers must report. err is
// non-nil only for an unknown kind, an unparsable endpoint or (for Uring) a
// KATBENCH_URING_WAIT that names no wait mode.
func New(kind Kind, endpoint string, opts Options) (rt http.RoundTripper, used Kind, fallback string, err error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if err == nil {
			err = fmt.Errorf("want http://host[:port] or https://host[:port]")
		}
		return nil, "", "", fmt.Errorf("transport: endpoint %q: %w: %v", endpoint, ErrBadEndpoint, err)
	}
	switch kind {
	case HTTP:
		return NewHTTP(opts), HTTP, "", nil
	case Uring:
		if err := uring.CheckWaitEnv(); err != nil {
			return nil, "", "", fmt.Errorf("transport: %w", err)
		}
		if u.Scheme == "https" {
			return NewHTTP(opts), HTTP, "uring: https endpoints go through net/http (the io_uring path is plaintext only)", nil
		}
		t, err := uring.NewTransport(uring.Options{
			PoolSize:              opts.poolSize(),
			DialTimeout:           opts.DialTimeout,
			ResponseHeaderTimeout: opts.Timeout,
		})
		if err != nil {
			return NewHTTP(opts), HTTP, "uring: " + strings.TrimPrefix(err.Error(), "uring: "), nil
		}
		return t, Uring, "", nil
	}
	return nil, "", "", fmt.Errorf("transport %q: %w", kind, ErrUnknownKind)
}

// NewHTTP returns net/http's transport tuned like the io_uring one: a
// keep-alive pool of PoolSize connections per host (idle and total),
// HTTP/1.1 only (no h2 upgrade, on plaintext or TLS), no transparent
// compression, no proxy from the environment (benchmarks talk straight to
// the endpoint).
func NewHTTP(opts Options) *http.Transport {
	n := opts.poolSize()
	dialer := &net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		MaxIdleConns:           n,
		MaxIdleConnsPerHost:    n,
		MaxConnsPerHost:        n,
		IdleConnTimeout:        90 * time.Second,
		ResponseHeaderTimeout:  opts.Timeout,
		TLSHandshakeTimeout:    10 * time.Second,
		DisableCompression:     true,
		DisableKeepAlives:      false,
		ForceAttemptHTTP2:      false,
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
		MaxResponseHeaderBytes: 1 << 20,
	}
}
