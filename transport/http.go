package transport

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"time"
)

// HTTP is Go's net/http transport, tuned by NewHTTP: the baseline every
// other transport falls back to.
const HTTP Kind = "http"

func init() {
	Register(Plugin{
		Name: HTTP, Order: 0, Doc: "Go's net/http, tuned like the others (the baseline)",
		New: func(_ *url.URL, opts Options) (http.RoundTripper, error) { return NewHTTP(opts), nil },
	})
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
