package grpcfront

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
)

// ErrNilCatalog is returned by NewServer when given no catalog.
var ErrNilCatalog = errors.New("grpcfront: nil catalog")

// ErrBadOptions is returned by NewServer for an invalid ServerOptions value.
var ErrBadOptions = errors.New("invalid server options")

// Limits of a Server; the Default ones apply when the ServerOptions field
// is zero.
const (
	// DefaultMaxRecvBytes bounds one request message. The largest legitimate
	// requests are CreateTable and CommitTable: a commit that adds a
	// 10,000-column schema is 0.65 MB of JSON (measured), a snapshot commit
	// a few KB. 16 MiB is the REST front's commit body limit too.
	DefaultMaxRecvBytes = 16 << 20
	// DefaultMaxConcurrentStreams bounds the calls in flight on one
	// connection; a client past it waits for a free stream (grpc queues the
	// call client-side), it is not refused.
	DefaultMaxConcurrentStreams = 1024
	// DefaultMaxConnections bounds the open connections; a connection past
	// it is closed as soon as it is accepted.
	DefaultMaxConnections = 256
	// MaxTokenCalls bounds the GetToken calls in flight at once. GetToken
	// is the one call read before its caller is known, so this (times the
	// receive limit) bounds what unauthenticated callers can make the
	// server hold; a GetToken past it fails with ResourceExhausted (the
	// client retries it with backoff).
	MaxTokenCalls = 4
)

// ServerOptions configures a Server. The zero value serves without auth,
// with the default limits.
type ServerOptions struct {
	// Credentials, when non-empty, turn on bearer-token auth: GetToken
	// exchanges one of them for a token, and every other RPC needs
	// "authorization: Bearer <token>". The token is checked when the call's
	// headers arrive, before its message is read: a call without a valid
	// token fails with Unauthenticated and its message is never decoded.
	Credentials []Credential
	// TokenTTL is how long an issued token is valid (0 = DefaultTokenTTL).
	TokenTTL time.Duration
	// MaxRecvBytes bounds one request message (0 = DefaultMaxRecvBytes); a
	// larger one fails with ResourceExhausted before it is read.
	MaxRecvBytes int
	// MaxConcurrentStreams bounds the calls in flight per connection
	// (0 = DefaultMaxConcurrentStreams).
	MaxConcurrentStreams uint32
	// MaxConnections bounds the open connections (0 =
	// DefaultMaxConnections).
	MaxConnections int
	// GRPCOptions are appended to the server's own options.
	GRPCOptions []grpc.ServerOption
}

// metadataJSONLoader is the optional fast path of a served catalog (the
// embedded catalog has it): the metadata JSON exactly as stored, shared and
// read-only, so a load sends it without decoding or re-encoding.
type metadataJSONLoader interface {
	LoadMetadataJSON(ctx context.Context, ident table.Identifier) (location string, raw []byte, err error)
}

// Server serves one catalog.Catalog over gRPC. Serve may be called for
// several listeners; Stop and GracefulStop end them all. Safe for concurrent
// use; the served catalog must be too. The Server never closes the catalog.
type Server struct {
	gs       *grpc.Server
	svc      *service
	maxConns int

	// onAccept, when set (by tests, before Serve), sees every accepted TCP
	// connection after TCP_NODELAY is set.
	onAccept func(*net.TCPConn)
}

// NewServer returns a server for cat.
func NewServer(cat icecatalog.Catalog, opts ServerOptions) (*Server, error) {
	if cat == nil {
		return nil, ErrNilCatalog
	}
	if opts.MaxRecvBytes < 0 || opts.MaxConnections < 0 {
		return nil, fmt.Errorf("grpcfront: %w: negative MaxRecvBytes or MaxConnections", ErrBadOptions)
	}
	maxRecv := cmp.Or(opts.MaxRecvBytes, DefaultMaxRecvBytes)
	svc := &service{cat: cat}
	svc.fast, _ = cat.(metadataJSONLoader)
	gopts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxRecv),
		grpc.MaxConcurrentStreams(cmp.Or(opts.MaxConcurrentStreams, DefaultMaxConcurrentStreams)),
		// As on the client: fixed windows, no BDP pings.
		grpc.InitialWindowSize(streamWindow),
		grpc.InitialConnWindowSize(connWindow),
		// Handlers run on a pool of long-lived goroutines whose stacks have
		// already grown, instead of a fresh goroutine (and stack copies) per
		// call; grpc spawns extra goroutines when all workers are busy.
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
	}
	gopts = append(gopts, grpc.ChainUnaryInterceptor(recoverPanics, timeHandler))
	if len(opts.Credentials) > 0 {
		tokens, err := newTokenStore(opts.Credentials, opts.TokenTTL)
		if err != nil {
			return nil, err
		}
		svc.tokens = tokens
		// Checked on the headers, before grpc reads (and allocates) the
		// message: a unary interceptor would run only after decoding.
		gopts = append(gopts, grpc.InTapHandle(svc.tokens.tap))
	}
	gopts = append(gopts, opts.GRPCOptions...)
	gs := grpc.NewServer(gopts...)
	catalogv1.RegisterCatalogServiceServer(gs, svc)
	return &Server{gs: gs, svc: svc, maxConns: cmp.Or(opts.MaxConnections, DefaultMaxConnections)}, nil
}

// Serve accepts connections on l until Stop or GracefulStop, setting
// TCP_NODELAY on each and closing those past the connection limit (counted
// per Serve call). It returns nil after a stop, else the accept error.
func (s *Server) Serve(l net.Listener) error {
	err := s.gs.Serve(&noDelayListener{Listener: l, onAccept: s.onAccept, slots: make(chan struct{}, s.maxConns)})
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Stop closes every listener and connection at once; in-flight calls fail
// with Unavailable on the client.
func (s *Server) Stop() { s.gs.Stop() }

// GracefulStop stops accepting, lets in-flight calls finish, then returns.
func (s *Server) GracefulStop() { s.gs.GracefulStop() }

// Shutdown stops gracefully, waiting for in-flight calls until ctx ends;
// then it stops hard and returns ctx's error. It is restserver's Shutdown
// contract, so one lifecycle (internal/serve) runs both fronts.
func (s *Server) Shutdown(ctx context.Context) error {
	stopped := make(chan struct{})
	go func() { s.gs.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		s.gs.Stop()
		<-stopped
		return fmt.Errorf("grpcfront: calls still running, stopped hard: %w", ctx.Err())
	}
}

// recoverPanics turns a panic in a handler (a catalog or iceberg-go decoder
// fault on some input) into an Internal error for that call: grpc-go does
// not recover handler panics, and one bad request must not end the server.
func recoverPanics(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, status.Errorf(codes.Internal, "%s: panic: %v", info.FullMethod, r)
		}
	}()
	return handler(ctx, req)
}

// ServerTimingTrailer is the trailer every unary reply carries the
// server's own time in, "app;dur=MS" (milliseconds, as the HTTP
// Server-Timing header our REST front sends): from the handler's start,
// after the request was decoded, to its return, before the reply is
// encoded.
const ServerTimingTrailer = "server-timing"

// timeHandler sets the ServerTimingTrailer of a unary call.
func timeHandler(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	ms := float64(time.Since(start)) / float64(time.Millisecond)
	_ = grpc.SetTrailer(ctx, metadata.Pairs(ServerTimingTrailer, "app;dur="+strconv.FormatFloat(ms, 'f', 3, 64)))
	return resp, err
}

// service implements catalogv1.CatalogServiceServer over a catalog.Catalog.
type service struct {
	catalogv1.UnimplementedCatalogServiceServer

	cat    icecatalog.Catalog
	fast   metadataJSONLoader // nil when cat has no JSON fast path
	tokens *tokenStore        // nil when auth is off
}

func empty() *catalogv1.Empty { return &catalogv1.Empty{} }

func (s *service) GetToken(_ context.Context, req *catalogv1.GetTokenRequest) (*catalogv1.GetTokenResponse, error) {
	if s.tokens == nil {
		return nil, status.Error(codes.FailedPrecondition, "auth is off on this server: no token needed")
	}
	tok, exp, err := s.tokens.issue(req.GetId(), req.GetSecret())
	if err != nil {
		return nil, err
	}
	return &catalogv1.GetTokenResponse{Token: tok, ExpiresAtUnixNano: exp.UnixNano()}, nil
}

func (s *service) Ping(context.Context, *catalogv1.Empty) (*catalogv1.Empty, error) {
	return empty(), nil
}

func (s *service) CreateNamespace(ctx context.Context, req *catalogv1.CreateNamespaceRequest) (*catalogv1.Empty, error) {
	if err := s.cat.CreateNamespace(ctx, req.GetNamespace(), req.GetProperties()); err != nil {
		return nil, toStatus(err)
	}
	return empty(), nil
}

func (s *service) LoadNamespaceProperties(ctx context.Context, req *catalogv1.NamespaceRequest) (*catalogv1.Properties, error) {
	props, err := s.cat.LoadNamespaceProperties(ctx, req.GetNamespace())
	if err != nil {
		return nil, toStatus(err)
	}
	return &catalogv1.Properties{Properties: props}, nil
}

func (s *service) UpdateNamespaceProperties(ctx context.Context, req *catalogv1.UpdateNamespacePropertiesRequest) (*catalogv1.UpdateNamespacePropertiesResponse, error) {
	sum, err := s.cat.UpdateNamespaceProperties(ctx, req.GetNamespace(), req.GetRemovals(), req.GetUpdates())
	if err != nil {
		return nil, toStatus(err)
	}
	return &catalogv1.UpdateNamespacePropertiesResponse{Removed: sum.Removed, Updated: sum.Updated, Missing: sum.Missing}, nil
}

func (s *service) ListNamespaces(ctx context.Context, req *catalogv1.NamespaceRequest) (*catalogv1.IdentifierList, error) {
	nss, err := s.cat.ListNamespaces(ctx, req.GetNamespace())
	if err != nil {
		return nil, toStatus(err)
	}
	return identifierList(nss), nil
}

func (s *service) CheckNamespaceExists(ctx context.Context, req *catalogv1.NamespaceRequest) (*catalogv1.ExistsResponse, error) {
	ok, err := s.cat.CheckNamespaceExists(ctx, req.GetNamespace())
	if err != nil {
		return nil, toStatus(err)
	}
	return &catalogv1.ExistsResponse{Exists: ok}, nil
}

func (s *service) DropNamespace(ctx context.Context, req *catalogv1.NamespaceRequest) (*catalogv1.Empty, error) {
	if err := s.cat.DropNamespace(ctx, req.GetNamespace()); err != nil {
		return nil, toStatus(err)
	}
	return empty(), nil
}

func (s *service) CreateTable(ctx context.Context, req *catalogv1.CreateTableRequest) (*catalogv1.TableResponse, error) {
	opts, schema, err := createTableArgs(req)
	if err != nil {
		return nil, toStatus(err)
	}
	tbl, err := s.cat.CreateTable(ctx, req.GetIdent(), schema, opts...)
	if err != nil {
		return nil, toStatus(err)
	}
	return tableResponse(tbl.MetadataLocation(), tbl.Metadata())
}

// createTableArgs decodes the JSON parts of a CreateTable request. Every
// decoding error wraps iceberg.ErrInvalidArgument (→ InvalidArgument).
func createTableArgs(req *catalogv1.CreateTableRequest) ([]icecatalog.CreateTableOpt, *iceberg.Schema, error) {
	if len(req.GetSchemaJson()) == 0 {
		return nil, nil, fmt.Errorf("%w: create table: schema is required", iceberg.ErrInvalidArgument)
	}
	schema := new(iceberg.Schema)
	if err := json.Unmarshal(req.GetSchemaJson(), schema); err != nil {
		return nil, nil, fmt.Errorf("%w: create table: schema: %w", iceberg.ErrInvalidArgument, err)
	}
	var opts []icecatalog.CreateTableOpt
	if loc := req.GetLocation(); loc != "" {
		opts = append(opts, icecatalog.WithLocation(loc))
	}
	if props := req.GetProperties(); len(props) > 0 {
		opts = append(opts, icecatalog.WithProperties(props))
	}
	if b := req.GetPartitionSpecJson(); len(b) > 0 {
		spec := new(iceberg.PartitionSpec)
		if err := json.Unmarshal(b, spec); err != nil {
			return nil, nil, fmt.Errorf("%w: create table: partition spec: %w", iceberg.ErrInvalidArgument, err)
		}
		opts = append(opts, icecatalog.WithPartitionSpec(spec))
	}
	if b := req.GetSortOrderJson(); len(b) > 0 {
		var order table.SortOrder
		if err := json.Unmarshal(b, &order); err != nil {
			return nil, nil, fmt.Errorf("%w: create table: sort order: %w", iceberg.ErrInvalidArgument, err)
		}
		opts = append(opts, icecatalog.WithSortOrder(order))
	}
	if b := req.GetStagedUpdatesJson(); len(b) > 0 {
		var ups table.Updates
		if err := json.Unmarshal(b, &ups); err != nil {
			return nil, nil, fmt.Errorf("%w: create table: staged updates: %w", iceberg.ErrInvalidArgument, err)
		}
		opts = append(opts, icecatalog.WithStagedUpdates(ups...))
	}
	return opts, schema, nil
}

// LoadTable answers a conditional load (known_metadata_location) whose
// version is still current with not_modified and no metadata: the
// location names one immutable version, so the client's copy is the
// table's.
func (s *service) LoadTable(ctx context.Context, req *catalogv1.TableRequest) (*catalogv1.TableResponse, error) {
	resp, err := s.load(ctx, req.GetIdent())
	if err != nil {
		return nil, err
	}
	if k := req.GetKnownMetadataLocation(); k != "" && k == resp.GetMetadataLocation() {
		return &catalogv1.TableResponse{MetadataLocation: k, NotModified: true}, nil
	}
	return resp, nil
}

func (s *service) ResolveMetadata(ctx context.Context, req *catalogv1.TableRequest) (*catalogv1.TableResponse, error) {
	return s.load(ctx, req.GetIdent())
}

// load returns a table's metadata location and JSON: as stored, through the
// fast path, when the catalog has one; else encoded once from LoadTable.
func (s *service) load(ctx context.Context, ident table.Identifier) (*catalogv1.TableResponse, error) {
	if s.fast != nil {
		loc, raw, err := s.fast.LoadMetadataJSON(ctx, ident)
		if err != nil {
			return nil, toStatus(err)
		}
		return &catalogv1.TableResponse{MetadataLocation: loc, MetadataJson: raw}, nil
	}
	tbl, err := s.cat.LoadTable(ctx, ident)
	if err != nil {
		return nil, toStatus(err)
	}
	return tableResponse(tbl.MetadataLocation(), tbl.Metadata())
}

func (s *service) CheckTableExists(ctx context.Context, req *catalogv1.TableRequest) (*catalogv1.ExistsResponse, error) {
	ok, err := s.cat.CheckTableExists(ctx, req.GetIdent())
	if err != nil {
		return nil, toStatus(err)
	}
	return &catalogv1.ExistsResponse{Exists: ok}, nil
}

func (s *service) ListTables(ctx context.Context, req *catalogv1.NamespaceRequest) (*catalogv1.IdentifierList, error) {
	var out []table.Identifier
	for ident, err := range s.cat.ListTables(ctx, req.GetNamespace()) {
		if err != nil {
			return nil, toStatus(err)
		}
		out = append(out, ident)
	}
	return identifierList(out), nil
}

func (s *service) DropTable(ctx context.Context, req *catalogv1.TableRequest) (*catalogv1.Empty, error) {
	if err := s.cat.DropTable(ctx, req.GetIdent()); err != nil {
		return nil, toStatus(err)
	}
	return empty(), nil
}

func (s *service) RenameTable(ctx context.Context, req *catalogv1.RenameTableRequest) (*catalogv1.TableResponse, error) {
	tbl, err := s.cat.RenameTable(ctx, req.GetFrom(), req.GetTo())
	if err != nil {
		return nil, toStatus(err)
	}
	return tableResponse(tbl.MetadataLocation(), tbl.Metadata())
}

func (s *service) CommitTable(ctx context.Context, req *catalogv1.CommitTableRequest) (*catalogv1.TableResponse, error) {
	reqs, ups, err := commitArgs(req)
	if err != nil {
		return nil, toStatus(err)
	}
	meta, loc, err := s.cat.CommitTable(ctx, req.GetIdent(), reqs, ups)
	if err != nil {
		return nil, toStatus(err)
	}
	return tableResponse(loc, meta)
}

// commitArgs decodes the JSON parts of a CommitTable request. Every decoding
// error wraps iceberg.ErrInvalidArgument (→ InvalidArgument).
func commitArgs(req *catalogv1.CommitTableRequest) (table.Requirements, table.Updates, error) {
	var reqs table.Requirements
	if b := req.GetRequirementsJson(); len(b) > 0 {
		if err := json.Unmarshal(b, &reqs); err != nil {
			return nil, nil, fmt.Errorf("%w: commit table: requirements: %w", iceberg.ErrInvalidArgument, err)
		}
	}
	var ups table.Updates
	if b := req.GetUpdatesJson(); len(b) > 0 {
		if err := json.Unmarshal(b, &ups); err != nil {
			return nil, nil, fmt.Errorf("%w: commit table: updates: %w", iceberg.ErrInvalidArgument, err)
		}
	}
	return reqs, ups, nil
}

// tableResponse encodes metadata once for the reply.
func tableResponse(loc string, meta table.Metadata) (*catalogv1.TableResponse, error) {
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encode metadata %s: %v", loc, err)
	}
	return &catalogv1.TableResponse{MetadataLocation: loc, MetadataJson: raw}, nil
}

func identifierList(ids []table.Identifier) *catalogv1.IdentifierList {
	out := &catalogv1.IdentifierList{Identifiers: make([]*catalogv1.Identifier, len(ids))}
	for i, id := range ids {
		out.Identifiers[i] = &catalogv1.Identifier{Parts: id}
	}
	return out
}
