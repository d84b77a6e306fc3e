package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// ErrSettings is wrapped by every error of StorageSettings.Resolve that is
// the user's input (a bad flag or environment value); nothing has been
// created then.
var ErrSettings = errors.New("bad storage settings")

// settingsf says only what is wrong; it is ErrSettings as well as its
// cause.
func settingsf(format string, args ...any) error { return usage.Errorf(ErrSettings, format, args...) }

// StorageSettings say where the embedded catalog keeps its warehouse, as
// the flags of every command that opens one give them (embedded, run,
// serve rest, serve grpc). The zero value is the default warehouse.
type StorageSettings struct {
	Warehouse, Transport, Endpoint string
}

// RegisterFlags adds --warehouse, --transport and --s3-endpoint to fl.
func (s *StorageSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&s.Warehouse, "warehouse", "", "warehouse URI of the embedded catalog: file:///abs/path or s3://bucket/prefix (default: file:// under the catalog dir)")
	fl.StringVar(&s.Transport, "transport", "", "S3 byte transport for an s3:// warehouse: http or uring; env "+transport.EnvKind+" (default http)")
	fl.StringVar(&s.Endpoint, "s3-endpoint", "", "S3 endpoint http(s)://host:port of an s3:// warehouse; env "+s3.EnvEndpoint+" (keys from "+s3.EnvAccessKey+", "+s3.EnvSecretKey+", region from "+s3.EnvRegion+")")
}

// Storage is a resolved, checked warehouse. The zero value is the default:
// file:// under each catalog's own directory. A Storage is not changed
// after Resolve: safe to share.
type Storage struct {
	// Warehouse is the URI as given, without a trailing slash ("" = default).
	Warehouse string
	// S3 is true for an s3:// (or s3a://) warehouse.
	S3 bool
	// IOProps configure the warehouse's IO; nil for file://.
	IOProps map[string]string
	// Params go into result lines: warehouse (scheme and bucket), transport,
	// transport_fallback. Never keys.
	Params map[string]any
}

// Resolve validates the settings (the transport name always) and, for an
// s3:// warehouse, checks the store before anything else happens: bad
// settings are errors wrapping ErrSettings; an unreachable endpoint or
// refused keys are errors naming the endpoint. getenv reads the S3
// variables (s3.FromEnv) and the transport's; ts are the transports' own
// settings. A missing bucket is created (and said so on log): a benchmark
// warehouse is scratch space that katbench fills with uniquely named
// tables, like the temp directories it creates for file:// catalogs; the
// bucket is created only after every other check passed, and it is never
// deleted.
func (s StorageSettings) Resolve(ctx context.Context, getenv func(string) string, ts transport.Settings, log io.Writer) (Storage, error) {
	// A bad transport name is a usage error whether or not anything uses
	// it; a good one that nothing uses is said so.
	kind, err := transport.ParseKind(transport.DefaultKind(s.Transport, getenv))
	switch {
	case err != nil && s.Transport == "":
		return Storage{}, settingsf("%s: %v", transport.EnvKind, err)
	case err != nil:
		return Storage{}, settingsf("--transport: %v", err)
	}
	w, err := Parse(s.Warehouse)
	if err != nil {
		return Storage{}, settingsf("--warehouse: %v", err)
	}
	wh := w.URI
	if s.Transport != "" && !w.S3 {
		fmt.Fprintf(log, "katbench: warning: --transport %s has no effect: it picks the S3 transport of an s3:// --warehouse, and there is none\n", s.Transport)
	}
	switch {
	case wh == "":
		return Storage{}, nil
	case !w.S3:
		return Storage{Warehouse: wh, Params: map[string]any{"warehouse": w.Shown()}}, nil
	}
	env := s3.FromEnv(getenv)
	endpoint := s.Endpoint
	if endpoint == "" {
		endpoint = env.Endpoint
	}
	if endpoint == "" {
		return Storage{}, settingsf("--warehouse %s needs an S3 endpoint: give --s3-endpoint http://host:port or set %s", wh, s3.EnvEndpoint)
	}
	if _, err := s3.ParseEndpoint(endpoint); err != nil {
		return Storage{}, settingsf("--s3-endpoint: %v", err)
	}
	if env.AccessKey == "" || env.SecretKey == "" {
		return Storage{}, settingsf("--warehouse %s needs S3 keys: set %s and %s", wh, s3.EnvAccessKey, s3.EnvSecretKey)
	}
	env.Endpoint, env.TransportSettings = endpoint, ts
	props := IOProps(env, kind, "")
	used, fallback, err := CheckS3(ctx, w, props, log)
	if errors.Is(err, s3io.ErrBadProperty) {
		return Storage{}, settingsf("--warehouse %s: %v", wh, err)
	}
	if err != nil {
		return Storage{}, err
	}
	params := map[string]any{"warehouse": w.Shown(), "transport": string(used)}
	if fallback != "" {
		params["transport_fallback"] = fallback
	}
	return Storage{Warehouse: wh, S3: true, IOProps: props, Params: params}, nil
}

// VendedConfig is what the REST front hands its clients with
// --vend-storage-credentials: how to reach an s3:// warehouse (endpoint,
// keys, region, path-style addressing, under the names pyiceberg, Java and
// iceberg-go read). nil for a file:// warehouse, which has nothing to vend.
func (st Storage) VendedConfig() map[string]string {
	if !st.S3 {
		return nil
	}
	return map[string]string{
		icebergio.S3EndpointURL:            st.IOProps[icebergio.S3EndpointURL],
		icebergio.S3AccessKeyID:            st.IOProps[icebergio.S3AccessKeyID],
		icebergio.S3SecretAccessKey:        st.IOProps[icebergio.S3SecretAccessKey],
		icebergio.S3Region:                 st.IOProps[icebergio.S3Region],
		icebergio.S3ForceVirtualAddressing: "false",
		"s3.path-style-access":             "true",
	}
}

// Describe is the warehouse for a log line ("file:// under DIR" by
// default); never a key.
func (st Storage) Describe(dir string) string {
	if st.Warehouse == "" {
		return "file:// under " + dir
	}
	if st.S3 {
		return fmt.Sprintf("%s via %s (transport %v)", st.Warehouse, results.RedactText(st.IOProps[icebergio.S3EndpointURL]), st.Params["transport"])
	}
	return st.Warehouse
}

// IsS3 reports whether a --warehouse value names an S3 warehouse (also a
// malformed s3:// one).
func IsS3(wh string) bool {
	w, err := Parse(wh)
	return w.S3 || errors.Is(err, s3io.ErrBadWarehouse)
}
