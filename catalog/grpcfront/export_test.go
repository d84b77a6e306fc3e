package grpcfront

import (
	"net"
	"time"
)

// SetOnAccept installs a hook that sees every accepted TCP connection after
// TCP_NODELAY is set. Call before Serve.
func (s *Server) SetOnAccept(fn func(*net.TCPConn)) { s.onAccept = fn }

// CachedMetadataCount is the number of metadata locations the client caches.
func (c *Client) CachedMetadataCount() int { return c.cache.len() }

// CreateTableArgs and CommitArgs expose the request decoders to the fuzzers.
var (
	CreateTableArgs = createTableArgs
	CommitArgs      = commitArgs
)

// ToStatus and FromStatus expose the error mapping for its table test.
var (
	ToStatus   = toStatus
	FromStatus = fromStatus
	Sentinels  = func() []error {
		out := make([]error, len(sentinels))
		for i, s := range sentinels {
			out[i] = s.err
		}
		return out
	}
)

// SetTokenClock replaces the token store's clock. Call before Serve; a
// server without credentials has no store and ignores it.
func (s *Server) SetTokenClock(now func() time.Time) {
	if s.svc.tokens != nil {
		s.svc.tokens.now = now
	}
}
