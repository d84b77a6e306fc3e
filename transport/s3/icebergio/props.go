package icebergio

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// katbench's own properties, beside iceberg-go's standard S3 ones.
const (
	// PropTransport picks the byte transport (a registered name, see
	// package transport); empty means its baseline.
	PropTransport = "katbench.transport"
	// PropSettingPrefix prefixes a transport setting: the property
	// PropSettingPrefix+"uring.wait" is the setting "uring.wait" (see
	// transport.Settings).
	PropSettingPrefix = "katbench.transport.setting."
	// PropScope names who owns the clients the FS shares: FSs of one
	// scope with the same settings share one client (and its keep-alive
	// pool); different scopes never do. Release(scope) closes a scope's
	// clients. Empty is a scope like any other.
	PropScope = "katbench.scope"
	// PropFallbackPrefix prefixes a fallback of a standard S3 property:
	// PropFallbackPrefix+"s3.access-key-id" is used only when
	// "s3.access-key-id" itself is absent (from the client and the table's
	// config alike). A command sets the fallbacks from its environment
	// (KATBENCH_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
	// AWS_REGION; see Fallbacks), so a server that vends an endpoint but no
	// keys still gets the caller's keys; this package reads no environment.
	PropFallbackPrefix = "katbench.fallback."
	// PropPoolSize is the keep-alive connections kept per host; default
	// transport.DefaultPoolSize.
	PropPoolSize = "katbench.transport.pool-size"
	// PropPartSize is the multipart part size in bytes (and the size up to
	// which a file is one PUT); at least MinPartSize, default
	// DefaultPartSize.
	PropPartSize = "katbench.s3.part-size"
)

const (
	// MinPartSize is S3's smallest part but the last.
	MinPartSize = 5 << 20
	// MaxPartSize is S3's largest part.
	MaxPartSize = 5 << 30
	// DefaultPartSize is the part size when PropPartSize is unset: S3's
	// minimum, so a file larger than 5 MiB is never held whole.
	DefaultPartSize = MinPartSize
)

// Timeouts of every client: a dead endpoint fails instead of hanging.
const (
	dialTimeout     = 10 * time.Second
	responseTimeout = 2 * time.Minute
	maxRetries      = 3
)

// settings are the parsed properties; the client-shaping ones form the key
// clients are shared by.
type settings struct {
	key       clientKey
	partSize  int
	transport transport.Settings
}

// clientKey identifies a shared client.
type clientKey struct {
	endpoint, accessKey, secretKey, region string
	virtual                                bool
	kind                                   transport.Kind
	pool                                   int
	settings                               string // transport.Settings.String()
	scope                                  string
}

// parseSettings reads props, and nothing else (no environment), without
// any I/O. The transport settings are returned apart: the key holds only
// their canonical form.
func parseSettings(props map[string]string) (settings, error) {
	k := clientKey{
		endpoint:  first(props[icebergio.S3EndpointURL], props[PropFallbackPrefix+icebergio.S3EndpointURL]),
		accessKey: first(props[icebergio.S3AccessKeyID], props[PropFallbackPrefix+icebergio.S3AccessKeyID]),
		secretKey: first(props[icebergio.S3SecretAccessKey], props[PropFallbackPrefix+icebergio.S3SecretAccessKey]),
		region: first(props[icebergio.S3Region], props[icebergio.S3ClientRegion],
			props[PropFallbackPrefix+icebergio.S3Region], s3.DefaultRegion),
		scope: props[PropScope],
	}
	if k.endpoint == "" {
		return settings{}, ErrNoEndpoint
	}
	if _, err := s3.ParseEndpoint(k.endpoint); err != nil {
		return settings{}, fmt.Errorf("%s: %w", icebergio.S3EndpointURL, err)
	}
	if k.accessKey == "" || k.secretKey == "" {
		return settings{}, ErrNoCredentials
	}
	if v, ok := props[icebergio.S3ForceVirtualAddressing]; ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return settings{}, fmt.Errorf("%w: %s=%q is not a boolean", ErrBadProperty, icebergio.S3ForceVirtualAddressing, v)
		}
		k.virtual = b
	}
	kind, err := transport.ParseKind(props[PropTransport])
	if err != nil {
		return settings{}, fmt.Errorf("%w: %s: %w", ErrBadProperty, PropTransport, err)
	}
	k.kind = kind
	ts := transport.Settings{}
	for p, v := range props {
		if name, ok := strings.CutPrefix(p, PropSettingPrefix); ok {
			ts[name] = v
		}
	}
	if err := ts.Check(); err != nil {
		return settings{}, fmt.Errorf("%w: %w", ErrBadProperty, err)
	}
	k.settings = ts.String()
	if v := props[PropPoolSize]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 4096 {
			return settings{}, fmt.Errorf("%w: %s=%q, want 1..4096", ErrBadProperty, PropPoolSize, v)
		}
		k.pool = n
	}
	st := settings{key: k, partSize: DefaultPartSize, transport: ts}
	if v := props[PropPartSize]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < MinPartSize || n > MaxPartSize {
			return settings{}, fmt.Errorf("%w: %s=%q, want %d..%d bytes", ErrBadProperty, PropPartSize, v, MinPartSize, int64(MaxPartSize))
		}
		st.partSize = int(n)
	}
	return st, nil
}

// Fallbacks are the fallback properties (PropFallbackPrefix) of an S3
// configuration read from a command's environment (s3.FromEnv): its
// endpoint, keys and region, each only when set.
func Fallbacks(c s3.Config) map[string]string {
	p := map[string]string{}
	for k, v := range map[string]string{
		icebergio.S3EndpointURL: c.Endpoint, icebergio.S3AccessKeyID: c.AccessKey,
		icebergio.S3SecretAccessKey: c.SecretKey, icebergio.S3Region: c.Region,
	} {
		if v != "" {
			p[PropFallbackPrefix+k] = v
		}
	}
	return p
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
