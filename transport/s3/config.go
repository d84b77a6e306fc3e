// Package s3 builds katbench's S3 client — minio-go signing and speaking S3
// over a swappable byte transport (net/http or io_uring) — and hosts the
// in-process control server the transport micro-bench measures against.
package s3

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nordisk/katbench/transport"
)

// Environment variables a command fills a Config from (FromEnv).
const (
	EnvEndpoint  = "KATBENCH_S3_ENDPOINT"
	EnvAccessKey = "AWS_ACCESS_KEY_ID"
	EnvSecretKey = "AWS_SECRET_ACCESS_KEY"
	EnvRegion    = "AWS_REGION"
)

// DefaultRegion is used when neither a flag nor AWS_REGION names one.
// Setting a region also spares minio-go its GetBucketLocation round trip.
const DefaultRegion = "us-east-1"

// ErrBadEndpoint reports an endpoint that is not an http(s)://host[:port] URL.
var ErrBadEndpoint = errors.New("bad S3 endpoint")

// Config says where and how to reach an S3 store. A command starts from
// FromEnv(os.Getenv); flags then override fields.
type Config struct {
	// Endpoint is "http://host:port" or "https://host:port", no path.
	Endpoint string
	// Bucket is the bucket operations use.
	Bucket string
	// AccessKey and SecretKey sign requests (SigV4).
	AccessKey, SecretKey string
	// Region is the signing region; "" means DefaultRegion.
	Region string
	// Transport picks the byte transport; "" means transport.Baseline().
	Transport transport.Kind
	// TransportSettings are the transports' own settings (the io_uring
	// wait mode, for one); see transport.Settings.
	TransportSettings transport.Settings
	// PoolSize is the keep-alive connections kept per host; 0 means the
	// transport's default.
	PoolSize int
	// MaxRetries is minio-go's retry budget per request; 0 keeps its default
	// (10). Benchmarks set 1 so failures are counted, not retried away.
	MaxRetries int
	// VirtualHost addresses buckets as bucket.host (AWS's virtual-hosted
	// style) instead of host/bucket; path style is the default because every
	// local store understands it.
	VirtualHost bool
	// DialTimeout bounds connection setup and ResponseTimeout the wait for a
	// response's headers once a request is written; 0 means none.
	DialTimeout, ResponseTimeout time.Duration
}

// FromEnv returns a Config filled through getenv (os.Getenv in a
// command; this package reads no environment) from KATBENCH_S3_ENDPOINT,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION. Unset
// variables leave fields empty; Region falls back to DefaultRegion.
func FromEnv(getenv func(string) string) Config {
	c := Config{
		Endpoint:  getenv(EnvEndpoint),
		AccessKey: getenv(EnvAccessKey),
		SecretKey: getenv(EnvSecretKey),
		Region:    getenv(EnvRegion),
	}
	if c.Region == "" {
		c.Region = DefaultRegion
	}
	return c
}

// Endpoint is a validated S3 endpoint.
type Endpoint struct {
	// Host is "host:port" (or "host"), what minio-go wants.
	Host string
	// Secure is true for https.
	Secure bool
}

// ParseEndpoint validates s as http(s)://host[:port] with nothing after the
// host but an optional "/". Errors wrap ErrBadEndpoint and say what is wrong.
func ParseEndpoint(s string) (Endpoint, error) {
	if s == "" {
		return Endpoint{}, fmt.Errorf("%w: empty (give an ENDPOINT argument or set %s)", ErrBadEndpoint, EnvEndpoint)
	}
	if !strings.Contains(s, "://") {
		return Endpoint{}, fmt.Errorf("%w %q: missing scheme, want http://host:port or https://host:port", ErrBadEndpoint, s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return Endpoint{}, fmt.Errorf("%w %q: %v", ErrBadEndpoint, s, err)
	}
	var secure bool
	switch strings.ToLower(u.Scheme) {
	case "http":
	case "https":
		secure = true
	default:
		return Endpoint{}, fmt.Errorf("%w %q: scheme %q, want http or https", ErrBadEndpoint, s, u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return Endpoint{}, fmt.Errorf("%w %q: missing host", ErrBadEndpoint, s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return Endpoint{}, fmt.Errorf("%w %q: bad port %q", ErrBadEndpoint, s, p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return Endpoint{}, fmt.Errorf("%w %q: empty port", ErrBadEndpoint, s)
	}
	if u.User != nil {
		return Endpoint{}, fmt.Errorf("%w %q: credentials in the URL are not supported, use the key flags or env", ErrBadEndpoint, s)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Endpoint{}, fmt.Errorf("%w %q: unexpected path, query or fragment (give only scheme://host:port)", ErrBadEndpoint, s)
	}
	return Endpoint{Host: u.Host, Secure: secure}, nil
}

// Validate checks a well-formed endpoint, a bucket name and both keys.
func (c Config) Validate() error {
	if c.Bucket == "" {
		return errors.New("s3 config: bucket is empty")
	}
	return c.validateClient()
}

// validateClient checks what NewClient needs: Validate without the bucket,
// which a client does not use.
func (c Config) validateClient() error {
	if _, err := ParseEndpoint(c.Endpoint); err != nil {
		return err
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return fmt.Errorf("s3 config: access key and secret key are required (flags or %s / %s)", EnvAccessKey, EnvSecretKey)
	}
	if c.PoolSize < 0 {
		return fmt.Errorf("s3 config: pool size %d is negative", c.PoolSize)
	}
	return nil
}
