package grpcfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
)

var (
	// ErrBadAddress is returned by Dial for an address that is not HOST:PORT.
	ErrBadAddress = errors.New("grpcfront: bad address")
	// ErrClientClosed is returned by calls made after Client.Close.
	ErrClientClosed = errors.New("grpcfront: client is closed")
)

// DefaultCallTimeout bounds every client call whose context has no deadline,
// so a server that stops answering yields an error, never a hang.
const DefaultCallTimeout = 30 * time.Second

// maxClientRecvBytes bounds one reply: large tables have large metadata.
const maxClientRecvBytes = 256 << 20

// Flow-control windows of both ends (see Dial and NewServer).
const (
	streamWindow = 4 << 20
	connWindow   = 64 << 20
)

// CatalogType is what Client.CatalogType reports: the client speaks to the
// server as iceberg's REST client does to a REST server.
const CatalogType icecatalog.Type = "grpc"

// ClientOptions configures Dial. The zero value dials without auth.
type ClientOptions struct {
	// Credential ("id:secret" parsed by ParseCredential) makes the client
	// fetch a token with GetToken and refresh it before it expires.
	Credential Credential
	// Token is a ready bearer token (from the REST token endpoint, say),
	// used as is when Credential is empty.
	Token string
	// CallTimeout bounds each call whose context has no deadline:
	// 0 = DefaultCallTimeout, negative = no bound.
	CallTimeout time.Duration
	// Props are the file IO properties of the tables the client builds
	// (s3.endpoint, …), overlaid with each table's own properties.
	Props iceberg.Properties
	// DialOptions are appended to the client's own.
	DialOptions []grpc.DialOption
}

// Client is an iceberg-go catalog.Catalog over a CatalogService connection.
// It also resolves metadata without building a table (ResolveMetadata) and
// measures the path's floor (Control). Parsed metadata is cached by metadata
// location, so a warm load costs one round trip and no JSON parsing.
//
// Safe for concurrent use: all calls share one HTTP/2 connection.
type Client struct {
	addr    string
	conn    *grpc.ClientConn
	rpc     catalogv1.CatalogServiceClient
	timeout time.Duration
	cache   *metadataCache
	closed  atomic.Bool
}

var _ icecatalog.Catalog = (*Client)(nil)

// Dial connects to the server at addr (HOST:PORT), authenticates when asked
// to, and checks the server answers (one Ping) before returning, so a wrong
// address or credential fails here with a clear error.
func Dial(ctx context.Context, addr string, opts ClientOptions) (*Client, error) {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return nil, fmt.Errorf("%w %q: want HOST:PORT", ErrBadAddress, addr)
	}
	timeout := opts.CallTimeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	dopts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay:  50 * time.Millisecond,
				Multiplier: 1.6,
				Jitter:     0.2,
				MaxDelay:   2 * time.Second,
			},
			MinConnectTimeout: 5 * time.Second,
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxClientRecvBytes)),
		// Fixed, generous flow-control windows: metadata replies never wait
		// for a window update, and setting them turns off grpc's BDP
		// estimator, whose PING per data frame costs every call extra
		// frames and wake-ups on a path that is all small messages.
		grpc.WithInitialWindowSize(streamWindow),
		grpc.WithInitialConnWindowSize(connWindow),
	}
	var auth *bearerAuth
	if opts.Credential.ID != "" || opts.Token != "" {
		auth = &bearerAuth{cred: opts.Credential}
		dopts = append(dopts, grpc.WithPerRPCCredentials(auth))
		if opts.Credential.ID == "" {
			auth.setToken(opts.Token, time.Time{})
		} else {
			dopts = append(dopts, grpc.WithUnaryInterceptor(auth.retryUnauthenticated))
		}
	}
	dopts = append(dopts, opts.DialOptions...)
	// passthrough: the address goes to the dialer as given, no resolver.
	conn, err := grpc.NewClient("passthrough:///"+addr, dopts...)
	if err != nil {
		return nil, fmt.Errorf("grpc catalog %s: %w", addr, err)
	}
	c := &Client{
		addr:    addr,
		conn:    conn,
		rpc:     catalogv1.NewCatalogServiceClient(conn),
		timeout: timeout,
		cache:   newMetadataCache(opts.Props),
	}
	if auth != nil {
		auth.rpc = c.rpc
		if opts.Credential.ID != "" {
			cctx, cancel := c.callCtx(ctx)
			err := auth.refresh(cctx, nil)
			cancel()
			if err != nil {
				_ = conn.Close()
				return nil, c.wrap(ctx, "authenticate", nil, err)
			}
		}
	}
	if err := c.Control(ctx); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return c, nil
}

// Addr is the address the client dialled.
func (c *Client) Addr() string { return c.addr }

// Close closes the connection. Calls after Close fail with ErrClientClosed;
// a second Close returns ErrClientClosed too.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return ErrClientClosed
	}
	return c.conn.Close()
}

func noop() {}

// callCtx applies the default call timeout when ctx has no deadline.
func (c *Client) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout < 0 {
		return ctx, noop
	}
	if _, ok := ctx.Deadline(); ok {
		return ctx, noop
	}
	return context.WithTimeout(ctx, c.timeout)
}

// wrap maps a call's error back to iceberg-go sentinels; the op text is only
// built on this error path.
func (c *Client) wrap(ctx context.Context, op string, ident table.Identifier, err error) error {
	if ident != nil {
		op = op + " " + strings.Join(ident, ".")
	}
	if c.closed.Load() {
		return fmt.Errorf("%s: %w", op, ErrClientClosed)
	}
	return fromStatus(ctx, c.addr, op, err)
}

// Control is one empty round trip on the same connection: the floor of
// every other call's latency.
func (c *Client) Control(ctx context.Context) error {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	if _, err := c.rpc.Ping(cctx, &catalogv1.Empty{}); err != nil {
		return c.wrap(ctx, "ping", nil, err)
	}
	return nil
}

// CatalogType implements catalog.Catalog.
func (c *Client) CatalogType() icecatalog.Type { return CatalogType }

// CreateTable implements catalog.Catalog.
func (c *Client) CreateTable(ctx context.Context, ident table.Identifier, schema *iceberg.Schema, opts ...icecatalog.CreateTableOpt) (*table.Table, error) {
	req, err := createTableRequest(ident, schema, opts)
	if err != nil {
		return nil, fmt.Errorf("create table %s: %w", strings.Join(ident, "."), err)
	}
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.CreateTable(cctx, req)
	if err != nil {
		return nil, c.wrap(ctx, "create table", ident, err)
	}
	return c.table(ident, resp)
}

func createTableRequest(ident table.Identifier, schema *iceberg.Schema, opts []icecatalog.CreateTableOpt) (*catalogv1.CreateTableRequest, error) {
	if schema == nil {
		return nil, fmt.Errorf("%w: schema is required", iceberg.ErrInvalidArgument)
	}
	cfg := icecatalog.NewCreateTableCfg()
	for _, o := range opts {
		o(&cfg)
	}
	req := &catalogv1.CreateTableRequest{Ident: ident, Location: cfg.Location, Properties: cfg.Properties}
	var err error
	if req.SchemaJson, err = json.Marshal(schema); err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	if cfg.PartitionSpec != nil {
		if req.PartitionSpecJson, err = json.Marshal(cfg.PartitionSpec); err != nil {
			return nil, fmt.Errorf("encode partition spec: %w", err)
		}
	}
	if !cfg.SortOrder.IsUnsorted() || cfg.SortOrder.OrderID() != table.UnsortedSortOrder.OrderID() {
		if req.SortOrderJson, err = json.Marshal(cfg.SortOrder); err != nil {
			return nil, fmt.Errorf("encode sort order: %w", err)
		}
	}
	if len(cfg.StagedUpdates) > 0 {
		if req.StagedUpdatesJson, err = json.Marshal(cfg.StagedUpdates); err != nil {
			return nil, fmt.Errorf("encode staged updates: %w", err)
		}
	}
	return req, nil
}

// resolve turns a TableResponse into cached, parsed metadata.
func (c *Client) resolve(ident table.Identifier, resp *catalogv1.TableResponse) (*cachedMetadata, error) {
	e, err := c.cache.resolve(ident, resp.GetMetadataLocation(), resp.GetMetadataJson())
	if err != nil {
		return nil, fmt.Errorf("table %s: parse metadata %s: %w", strings.Join(ident, "."), resp.GetMetadataLocation(), err)
	}
	return e, nil
}

func (c *Client) table(ident table.Identifier, resp *catalogv1.TableResponse) (*table.Table, error) {
	e, err := c.resolve(ident, resp)
	if err != nil {
		return nil, err
	}
	return table.New(ident, e.meta, resp.GetMetadataLocation(), e.fsF, c), nil
}

// CommitTable implements catalog.Catalog: requirements and updates travel
// as their iceberg-go JSON encodings.
func (c *Client) CommitTable(ctx context.Context, ident table.Identifier, reqs []table.Requirement, updates []table.Update) (table.Metadata, string, error) {
	req := &catalogv1.CommitTableRequest{Ident: ident}
	var err error
	if len(reqs) > 0 {
		if req.RequirementsJson, err = json.Marshal(reqs); err != nil {
			return nil, "", fmt.Errorf("commit table %s: encode requirements: %w", strings.Join(ident, "."), err)
		}
	}
	if len(updates) > 0 {
		if req.UpdatesJson, err = json.Marshal(updates); err != nil {
			return nil, "", fmt.Errorf("commit table %s: encode updates: %w", strings.Join(ident, "."), err)
		}
	}
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.CommitTable(cctx, req)
	if err != nil {
		return nil, "", c.wrap(ctx, "commit table", ident, err)
	}
	e, err := c.resolve(ident, resp)
	if err != nil {
		return nil, "", err
	}
	return e.meta, resp.GetMetadataLocation(), nil
}

// ListTables implements catalog.Catalog. The list is fetched in one call
// when the sequence is first iterated.
func (c *Client) ListTables(ctx context.Context, namespace table.Identifier) iter.Seq2[table.Identifier, error] {
	return func(yield func(table.Identifier, error) bool) {
		cctx, cancel := c.callCtx(ctx)
		defer cancel()
		resp, err := c.rpc.ListTables(cctx, &catalogv1.NamespaceRequest{Namespace: namespace})
		if err != nil {
			yield(nil, c.wrap(ctx, "list tables in", namespace, err))
			return
		}
		for _, id := range resp.GetIdentifiers() {
			if !yield(table.Identifier(id.GetParts()), nil) {
				return
			}
		}
	}
}

// LoadTable implements catalog.Catalog. A warm load (metadata location seen
// before) parses nothing.
func (c *Client) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.LoadTable(cctx, &catalogv1.TableRequest{Ident: ident})
	if err != nil {
		return nil, c.wrap(ctx, "load table", ident, err)
	}
	return c.table(ident, resp)
}

// ConditionalLoad is the answer to [Client.LoadTableIfChanged].
type ConditionalLoad struct {
	// MetadataLocation is the table's current version.
	MetadataLocation string
	// NotModified: the version the client holds is current, and no
	// metadata was sent.
	NotModified bool
	// MetadataBytes is the size of the metadata JSON received (0 when not
	// modified).
	MetadataBytes int
}

// LoadTableIfChanged is a conditional load: it sends known, the metadata
// location of the version the caller holds ("" for none), and the server
// answers NotModified when that is still the current version, else the
// current metadata, whose size it reports without parsing it.
func (c *Client) LoadTableIfChanged(ctx context.Context, ident table.Identifier, known string) (ConditionalLoad, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.LoadTable(cctx, &catalogv1.TableRequest{Ident: ident, KnownMetadataLocation: known})
	if err != nil {
		return ConditionalLoad{}, c.wrap(ctx, "load table", ident, err)
	}
	return ConditionalLoad{MetadataLocation: resp.GetMetadataLocation(), NotModified: resp.GetNotModified(),
		MetadataBytes: len(resp.GetMetadataJson())}, nil
}

// ResolveMetadata returns the table's current metadata without building a
// table.Table (the competitors.MetadataResolver capability).
func (c *Client) ResolveMetadata(ctx context.Context, ident table.Identifier) (table.Metadata, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.ResolveMetadata(cctx, &catalogv1.TableRequest{Ident: ident})
	if err != nil {
		return nil, c.wrap(ctx, "resolve metadata", ident, err)
	}
	e, err := c.resolve(ident, resp)
	if err != nil {
		return nil, err
	}
	return e.meta, nil
}

// DropTable implements catalog.Catalog.
func (c *Client) DropTable(ctx context.Context, ident table.Identifier) error {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	if _, err := c.rpc.DropTable(cctx, &catalogv1.TableRequest{Ident: ident}); err != nil {
		return c.wrap(ctx, "drop table", ident, err)
	}
	return nil
}

// RenameTable implements catalog.Catalog.
func (c *Client) RenameTable(ctx context.Context, from, to table.Identifier) (*table.Table, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.RenameTable(cctx, &catalogv1.RenameTableRequest{From: from, To: to})
	if err != nil {
		return nil, c.wrap(ctx, "rename table "+strings.Join(from, ".")+" to", to, err)
	}
	return c.table(to, resp)
}

// CheckTableExists implements catalog.Catalog.
func (c *Client) CheckTableExists(ctx context.Context, ident table.Identifier) (bool, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.CheckTableExists(cctx, &catalogv1.TableRequest{Ident: ident})
	if err != nil {
		return false, c.wrap(ctx, "check table exists", ident, err)
	}
	return resp.GetExists(), nil
}

// ListNamespaces implements catalog.Catalog.
func (c *Client) ListNamespaces(ctx context.Context, parent table.Identifier) ([]table.Identifier, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.ListNamespaces(cctx, &catalogv1.NamespaceRequest{Namespace: parent})
	if err != nil {
		return nil, c.wrap(ctx, "list namespaces under", parent, err)
	}
	ids := resp.GetIdentifiers()
	out := make([]table.Identifier, len(ids))
	for i, id := range ids {
		out[i] = id.GetParts()
	}
	return out, nil
}

// CreateNamespace implements catalog.Catalog.
func (c *Client) CreateNamespace(ctx context.Context, namespace table.Identifier, props iceberg.Properties) error {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	if _, err := c.rpc.CreateNamespace(cctx, &catalogv1.CreateNamespaceRequest{Namespace: namespace, Properties: props}); err != nil {
		return c.wrap(ctx, "create namespace", namespace, err)
	}
	return nil
}

// DropNamespace implements catalog.Catalog.
func (c *Client) DropNamespace(ctx context.Context, namespace table.Identifier) error {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	if _, err := c.rpc.DropNamespace(cctx, &catalogv1.NamespaceRequest{Namespace: namespace}); err != nil {
		return c.wrap(ctx, "drop namespace", namespace, err)
	}
	return nil
}

// CheckNamespaceExists implements catalog.Catalog.
func (c *Client) CheckNamespaceExists(ctx context.Context, namespace table.Identifier) (bool, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.CheckNamespaceExists(cctx, &catalogv1.NamespaceRequest{Namespace: namespace})
	if err != nil {
		return false, c.wrap(ctx, "check namespace exists", namespace, err)
	}
	return resp.GetExists(), nil
}

// LoadNamespaceProperties implements catalog.Catalog.
func (c *Client) LoadNamespaceProperties(ctx context.Context, namespace table.Identifier) (iceberg.Properties, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.LoadNamespaceProperties(cctx, &catalogv1.NamespaceRequest{Namespace: namespace})
	if err != nil {
		return nil, c.wrap(ctx, "load namespace properties", namespace, err)
	}
	props := resp.GetProperties()
	if props == nil {
		props = iceberg.Properties{}
	}
	return props, nil
}

// UpdateNamespaceProperties implements catalog.Catalog.
func (c *Client) UpdateNamespaceProperties(ctx context.Context, namespace table.Identifier, removals []string, updates iceberg.Properties) (icecatalog.PropertiesUpdateSummary, error) {
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	resp, err := c.rpc.UpdateNamespaceProperties(cctx, &catalogv1.UpdateNamespacePropertiesRequest{
		Namespace: namespace, Removals: removals, Updates: updates,
	})
	if err != nil {
		return icecatalog.PropertiesUpdateSummary{}, c.wrap(ctx, "update namespace properties", namespace, err)
	}
	return icecatalog.PropertiesUpdateSummary{
		Removed: nonNil(resp.GetRemoved()),
		Updated: nonNil(resp.GetUpdated()),
		Missing: nonNil(resp.GetMissing()),
	}, nil
}

// nonNil keeps the summary's lists non-nil, as in-process catalogs return
// them, since protobuf does not tell an empty list from none.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
