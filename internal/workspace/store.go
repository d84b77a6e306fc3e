package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// CheckTimeout bounds the up-front check of an S3 store (reachability,
// keys, bucket), so a dead endpoint is an error, not a hang.
const CheckTimeout = 30 * time.Second

// Store is where one run's warehouse lives: an S3 store — an endpoint, or
// the in-process control store when none is given — or a local directory.
// It owns the run's root (<warehouse>/<run id>), the control store it
// started and the run's S3 clients (scoped to the root). Not safe for
// concurrent use.
type Store struct {
	// Root is this run's warehouse: <warehouse>/<run id>.
	Root Warehouse
	// S3 is how to reach an S3 store (endpoint, keys, region, transport
	// settings); unused for a file:// warehouse.
	S3 s3.Config

	name string // "control", the endpoint (redacted), or "file"
	ctl  *s3.Control
}

// NewStore is the store of a run with id runID on wh. For an S3
// warehouse, cfg says where the store is; an empty cfg.Endpoint means the
// in-process control store, started by Open. Nothing is checked or
// started here.
func NewStore(wh Warehouse, runID string, cfg s3.Config) *Store {
	st := &Store{Root: wh.Run(runID), S3: cfg, name: "file"}
	if wh.S3 {
		st.S3.Bucket = wh.Bucket
		st.name = results.RedactText(cfg.Endpoint) // a label: stderr and params
	}
	return st
}

// ParseStore is the store of a run with id runID on the warehouse raw
// (defaultRaw when blank), reached as cfg says (an empty cfg.Endpoint: the
// in-process control store), validated without any I/O. The error names
// the flag whose value is bad (--warehouse, --s3-endpoint).
func ParseStore(raw, defaultRaw string, cfg s3.Config, runID string) (*Store, error) {
	if strings.TrimSpace(raw) == "" {
		raw = defaultRaw
	}
	w, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--warehouse: %w", err)
	}
	if w.S3 && cfg.Endpoint != "" {
		if _, err := s3.ParseEndpoint(cfg.Endpoint); err != nil {
			return nil, fmt.Errorf("--s3-endpoint: %w", err)
		}
		if cfg.AccessKey == "" || cfg.SecretKey == "" {
			return nil, fmt.Errorf("--s3-endpoint %s needs S3 keys: set %s and %s", cfg.Endpoint, s3.EnvAccessKey, s3.EnvSecretKey)
		}
	}
	return NewStore(w, runID, cfg), nil
}

// Open starts the control store when no endpoint was given and checks the
// store up front (reachable, keys accepted, bucket present). A missing
// bucket is created and said so on log: the run writes only under its own
// root and removes it afterwards. On error nothing is left running.
func (st *Store) Open(ctx context.Context, log io.Writer) error {
	if !st.Root.S3 {
		return nil
	}
	if st.S3.Endpoint == "" {
		ctl, err := s3.StartControl()
		if err != nil {
			return err
		}
		st.ctl, st.name, st.S3.Endpoint = ctl, "control", ctl.URL()
		if st.S3.AccessKey == "" || st.S3.SecretKey == "" {
			st.S3.AccessKey, st.S3.SecretKey = "control", "control" // it accepts any signature
		}
	}
	fsys, err := s3io.New(st.IOProps(transport.Baseline()))
	if err != nil {
		return errors.Join(err, st.Close())
	}
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	created, err := fsys.EnsureBucket(cctx, st.S3.Bucket)
	if err != nil {
		return errors.Join(fmt.Errorf("--warehouse %s: %w", st.Root.URI, err), st.Close())
	}
	if created && st.ctl == nil {
		fmt.Fprintf(log, "katbench: created bucket %q at %s for the data warehouse (it did not exist)\n", st.S3.Bucket, st.name)
	}
	return nil
}

// Name is the store as stderr and params.endpoint of S3 lines name it:
// "control", the endpoint, or "file".
func (st *Store) Name() string { return st.name }

// InProcess reports whether the store runs in this process (the control
// store): its objects are on this process's heap, and its work in its CPU.
func (st *Store) InProcess() bool { return st.ctl != nil }

// Kind is the line's params.store: "in-process control", "s3" (an S3
// endpoint) or "file" (a local directory).
func (st *Store) Kind() string {
	switch {
	case !st.Root.S3:
		return "file"
	case st.ctl != nil:
		return "in-process control"
	}
	return "s3"
}

// EndpointShown is the line's params.endpoint: the S3 endpoint as
// scheme://host:port, without user info, path or query; "" when the store
// is in-process or a directory (its port means nothing after the run).
func (st *Store) EndpointShown() string {
	if !st.Root.S3 || st.ctl != nil {
		return ""
	}
	u, err := url.Parse(st.S3.Endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Describe says which store the run uses and why: the in-process store,
// or an endpoint from a flag (fromFlag) or the environment. It may be
// called before Open.
func (st *Store) Describe(fromFlag bool) string {
	switch {
	case !st.Root.S3:
		return "the local disk (a file:// warehouse)"
	case st.ctl != nil || st.S3.Endpoint == "":
		return "the in-process control S3 store (no --s3-endpoint, no " + s3.EnvEndpoint + ")"
	}
	from := s3.EnvEndpoint + " from the environment"
	if fromFlag {
		from = "--s3-endpoint"
	}
	return "the S3 store at " + st.EndpointShown() + " (" + from + ")"
}

// IOProps are the iceberg-go IO properties of a lane on transport k, its
// clients scoped to the run (released by Close); nil for a file://
// warehouse.
func (st *Store) IOProps(k transport.Kind) map[string]string {
	if !st.Root.S3 {
		return nil
	}
	return IOProps(st.S3, k, st.Root.URI)
}

// IOProps are the iceberg-go IO properties that reach the store cfg
// describes over transport k, with cfg's transport settings, the shared
// clients owned by scope (see s3io.PropScope).
func IOProps(cfg s3.Config, k transport.Kind, scope string) map[string]string {
	p := map[string]string{
		icebergio.S3EndpointURL:     cfg.Endpoint,
		icebergio.S3AccessKeyID:     cfg.AccessKey,
		icebergio.S3SecretAccessKey: cfg.SecretKey,
		icebergio.S3Region:          cfg.Region,
		s3io.PropTransport:          string(k),
		s3io.PropScope:              scope,
	}
	for name, v := range cfg.TransportSettings {
		p[s3io.PropSettingPrefix+name] = v
	}
	return p
}

// CheckS3 is the up-front check of the S3 warehouse w through IO
// properties props (see IOProps): reachable, keys accepted, bucket
// present — a missing one is created and said so on log, only after every
// other check passed, and never deleted (a benchmark warehouse is scratch
// space). It returns the transport the IO really uses and, when it is not
// the one asked for, why (also said on log). A malformed property wraps
// s3io.ErrBadProperty; everything else names the endpoint.
func CheckS3(ctx context.Context, w Warehouse, props map[string]string, log io.Writer) (used transport.Kind, fallback string, err error) {
	fsys, err := s3io.New(props)
	if err != nil {
		return "", "", err
	}
	used, fallback = fsys.Transport()
	if fallback != "" {
		fmt.Fprintf(log, "katbench: warning: S3 transport %s unavailable, using %s (%s)\n", props[s3io.PropTransport], used, fallback)
	}
	cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	created, err := fsys.EnsureBucket(cctx, w.Bucket)
	if err != nil {
		return "", "", fmt.Errorf("--warehouse %s: %w", w.URI, err)
	}
	if created {
		fmt.Fprintf(log, "katbench: created bucket %q at %s for --warehouse %s (it did not exist)\n", w.Bucket, results.RedactText(props[icebergio.S3EndpointURL]), w.URI)
	}
	return used, fallback, nil
}

// Close releases the run's S3 clients and stops the control store.
func (st *Store) Close() error {
	s3io.Release(st.Root.URI)
	if st.ctl != nil {
		err := st.ctl.Close()
		st.ctl = nil
		return err
	}
	return nil
}

// RemoveRun deletes everything under the run's root (objects on S3, the
// directory of a file:// warehouse), on a context that survives the run's
// cancellation. The control store needs none: it vanishes with the run.
func (st *Store) RemoveRun(ctx context.Context) error {
	if !st.Root.S3 {
		if err := os.RemoveAll(st.Root.Dir); err != nil {
			return fmt.Errorf("remove the run's warehouse %s: %w", st.Root.URI, err)
		}
		return nil
	}
	if st.ctl != nil {
		return nil
	}
	cfg := st.S3
	cfg.Transport, cfg.MaxRetries = transport.Baseline(), 1
	c, info, err := s3.NewClient(cfg)
	if err != nil {
		return err
	}
	defer info.CloseIdle()
	if err := RemovePrefix(ctx, c, st.S3.Bucket, st.Root.Prefix+"/"); err != nil {
		return fmt.Errorf("remove the run's objects under %s: %w", st.Root.URI, err)
	}
	return nil
}
