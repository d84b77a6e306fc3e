package s3

import (
	"fmt"
	"net/http"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/nordisk/katbench/transport"
)

// Info says which byte transport a client really uses.
type Info struct {
	// Used is the transport the client's requests go through.
	Used transport.Kind
	// Fallback is empty when the requested transport is in use; otherwise
	// it says why not, e.g. "uring: io_uring_setup: operation not permitted".
	Fallback string

	rt http.RoundTripper
}

// Facts are what the transport says of its connections to hostport for
// a result line (transport.Describer: how io_uring requests wait, for
// one), keyed by param name; nil when it says nothing.
func (i Info) Facts(hostport string) map[string]any {
	if d, ok := i.rt.(transport.Describer); ok {
		return d.Describe(hostport)
	}
	return nil
}

// CloseIdle closes the client's idle keep-alive connections (and with them
// io_uring rings), for callers done with a client before the process ends.
// Requests may still be made afterwards; they dial again.
func (i Info) CloseIdle() {
	if c, ok := i.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// NewClient validates cfg (all of Validate but the bucket, which requests
// name themselves) and returns a minio-go client whose requests go
// through the chosen byte transport, so signing and S3 semantics are
// minio-go's and only the byte path differs between transports. Buckets are
// addressed path-style, which every local store understands.
//
// The client is safe for concurrent use (minio-go's contract); its
// connection pool holds cfg.PoolSize keep-alive connections.
func NewClient(cfg Config) (*minio.Client, Info, error) {
	if err := cfg.validateClient(); err != nil {
		return nil, Info{}, err
	}
	ep, _ := ParseEndpoint(cfg.Endpoint) // validated above
	kind, err := transport.ParseKind(string(cfg.Transport))
	if err != nil {
		return nil, Info{}, fmt.Errorf("s3 client: %w", err)
	}
	rt, used, fallback, err := transport.New(kind, cfg.Endpoint, transport.Options{
		PoolSize: cfg.PoolSize, DialTimeout: cfg.DialTimeout, Timeout: cfg.ResponseTimeout,
		Settings: cfg.TransportSettings,
	})
	if err != nil {
		return nil, Info{}, fmt.Errorf("s3 client: transport %s: %w", kind, err)
	}
	return newClient(cfg, ep, rt, Info{Used: used, Fallback: fallback, rt: rt})
}

// NewClientOver is NewClient with the given RoundTripper in place of a
// registered transport (cfg.Transport is ignored): every request of the
// client goes to rt, and Info.Used is used. It is for instruments that
// measure the client without a byte path (the transport bench's floor),
// never for talking to a store.
func NewClientOver(cfg Config, rt http.RoundTripper, used transport.Kind) (*minio.Client, Info, error) {
	if err := cfg.validateClient(); err != nil {
		return nil, Info{}, err
	}
	if rt == nil || used == "" {
		return nil, Info{}, fmt.Errorf("s3 client: NewClientOver needs a RoundTripper and its name")
	}
	ep, _ := ParseEndpoint(cfg.Endpoint) // validated above
	return newClient(cfg, ep, rt, Info{Used: used, rt: rt})
}

// newClient builds the minio-go client of a validated cfg over rt.
func newClient(cfg Config, ep Endpoint, rt http.RoundTripper, info Info) (*minio.Client, Info, error) {
	region := cfg.Region
	if region == "" {
		region = DefaultRegion
	}
	lookup := minio.BucketLookupPath
	if cfg.VirtualHost {
		lookup = minio.BucketLookupDNS
	}
	c, err := minio.New(ep.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       ep.Secure,
		Transport:    rt,
		Region:       region,
		BucketLookup: lookup,
		MaxRetries:   cfg.MaxRetries,
	})
	if err != nil {
		return nil, Info{}, fmt.Errorf("s3 client for %s: %w", cfg.Endpoint, err)
	}
	return c, info, nil
}
