package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// storageFlags say where the embedded catalog keeps its warehouse, for every
// command that opens one (embedded, run, serve rest, serve grpc, data).
type storageFlags struct {
	warehouse string
	transport string
	endpoint  string
}

func (s *storageFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&s.warehouse, "warehouse", "", "warehouse URI of the embedded catalog: file:///abs/path or s3://bucket/prefix (default: file:// under the catalog dir)")
	fl.StringVar(&s.transport, "transport", "", "S3 byte transport for an s3:// warehouse: http or uring; env "+transport.EnvKind+" (default http)")
	fl.StringVar(&s.endpoint, "s3-endpoint", "", "S3 endpoint http(s)://host:port of an s3:// warehouse; env "+s3.EnvEndpoint+" (keys from "+s3.EnvAccessKey+", "+s3.EnvSecretKey+", region from "+s3.EnvRegion+")")
}

// storage is a resolved, checked warehouse. The zero value is the default:
// file:// under each catalog's own directory.
type storage struct {
	// warehouse is the URI as given, without a trailing slash ("" = default).
	warehouse string
	// s3 is true for an s3:// (or s3a://) warehouse.
	s3 bool
	// ioProps configure the warehouse's IO; nil for file://.
	ioProps map[string]string
	// params go into result lines: warehouse (scheme and bucket), transport,
	// transport_fallback. Never keys.
	params map[string]any
}

// resolve validates the flags (the transport name always) and, for an
// s3:// warehouse, checks the store
// before anything else happens: bad flags are usage errors (exit 2); an
// unreachable endpoint or refused keys are errors naming the endpoint. A
// missing bucket is created (and said so on log): a benchmark warehouse is
// scratch space that katbench fills with uniquely named tables, like the
// temp directories it creates for file:// catalogs; the bucket is created
// only after every other check passed, and it is never deleted.
func (s storageFlags) resolve(ctx context.Context, log io.Writer) (storage, error) {
	// A bad transport name is a usage error whether or not anything uses
	// it; a good one that nothing uses is said so.
	kind, err := transport.ParseKind(transport.DefaultKind(s.transport, os.Getenv))
	switch {
	case err != nil && s.transport == "":
		return storage{}, usagef("%s: %v", transport.EnvKind, err)
	case err != nil:
		return storage{}, usagef("--transport: %v", err)
	}
	w, err := workspace.Parse(s.warehouse)
	if err != nil {
		return storage{}, usagef("--warehouse: %v", err)
	}
	wh := w.URI
	if s.transport != "" && !w.S3 {
		fmt.Fprintf(log, "katbench: warning: --transport %s has no effect: it picks the S3 transport of an s3:// --warehouse, and there is none\n", s.transport)
	}
	switch {
	case wh == "":
		return storage{}, nil
	case !w.S3:
		return storage{warehouse: wh, params: map[string]any{"warehouse": w.Shown()}}, nil
	}
	env := s3.FromEnv(os.Getenv)
	endpoint := s.endpoint
	if endpoint == "" {
		endpoint = env.Endpoint
	}
	if endpoint == "" {
		return storage{}, usagef("--warehouse %s needs an S3 endpoint: give --s3-endpoint http://host:port or set %s", wh, s3.EnvEndpoint)
	}
	if _, err := s3.ParseEndpoint(endpoint); err != nil {
		return storage{}, usagef("--s3-endpoint: %v", err)
	}
	if env.AccessKey == "" || env.SecretKey == "" {
		return storage{}, usagef("--warehouse %s needs S3 keys: set %s and %s", wh, s3.EnvAccessKey, s3.EnvSecretKey)
	}
	env.Endpoint, env.TransportSettings = endpoint, transportSettings
	props := workspace.IOProps(env, kind, "")
	used, fallback, err := workspace.CheckS3(ctx, w, props, log)
	if errors.Is(err, s3io.ErrBadProperty) {
		return storage{}, usagef("--warehouse %s: %v", wh, err)
	}
	if err != nil {
		return storage{}, err
	}
	params := map[string]any{"warehouse": w.Shown(), "transport": string(used)}
	if fallback != "" {
		params["transport_fallback"] = fallback
	}
	return storage{warehouse: wh, s3: true, ioProps: props, params: params}, nil
}

// forCompetitor is the storage of one competitor of a run: its own prefix
// (the competitor's directory name) under the warehouse, so competitors of
// one run never share a table location. The default stays the default.
func (st storage) forCompetitor(sub string) competitors.Storage {
	if st.warehouse == "" {
		return competitors.Storage{}
	}
	return competitors.Storage{Warehouse: st.warehouse + "/" + sub, IOProps: st.ioProps, Params: st.params}
}

// vendedConfig is what the REST front hands its clients with
// --vend-storage-credentials: how to reach an s3:// warehouse (endpoint,
// keys, region, path-style addressing, under the names pyiceberg, Java and
// iceberg-go read). nil for a file:// warehouse, which has nothing to vend.
func (st storage) vendedConfig() map[string]string {
	if !st.s3 {
		return nil
	}
	return map[string]string{
		icebergio.S3EndpointURL:            st.ioProps[icebergio.S3EndpointURL],
		icebergio.S3AccessKeyID:            st.ioProps[icebergio.S3AccessKeyID],
		icebergio.S3SecretAccessKey:        st.ioProps[icebergio.S3SecretAccessKey],
		icebergio.S3Region:                 st.ioProps[icebergio.S3Region],
		icebergio.S3ForceVirtualAddressing: "false",
		"s3.path-style-access":             "true",
	}
}

// describe is the warehouse for a log line ("file:// under DIR" by default).
func (st storage) describe(dir string) string {
	if st.warehouse == "" {
		return "file:// under " + dir
	}
	if st.s3 {
		return fmt.Sprintf("%s via %s (transport %v)", st.warehouse, results.RedactText(st.ioProps[icebergio.S3EndpointURL]), st.params["transport"])
	}
	return st.warehouse
}

// isS3Warehouse reports whether a --warehouse value names an S3 warehouse.
func isS3Warehouse(wh string) bool {
	w, err := workspace.Parse(wh)
	return w.S3 || errors.Is(err, s3io.ErrBadWarehouse)
}
