package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/auth"
	"github.com/nordisk/katbench/internal/sigv4"
)

// DefaultTokenTTL is the token lifetime when Options.TokenTTL is 0. The
// body limits' defaults are in limits.go.
const DefaultTokenTTL = auth.DefaultTTL

// ErrBadOptions is returned by New for an invalid Options value.
var ErrBadOptions = errors.New("restserver: invalid options")

// Options configure a Server. The zero value serves without authentication.
type Options struct {
	// Credential "id:secret" turns authentication on: every route except
	// /v1/oauth/tokens then needs "Authorization: Bearer <token>", and tokens
	// are minted only for this client id and secret. The rule is the gRPC
	// front's (internal/auth): both parts non-empty, the secret may contain
	// ':'.
	Credential string
	// RequiredScope, when set, must be one of the scopes a token request asks
	// for.
	RequiredScope string
	// TokenTTL is how long a minted token stays valid (DefaultTokenTTL if 0).
	TokenTTL time.Duration
	// MaxBodyBytes caps the body of the routes that carry metadata (create,
	// commit, register, transactions, metrics; DefaultMaxBodyBytes if 0).
	// The token route takes at most TokenBodyBytes and the name-and-property
	// routes SmallBodyBytes (or MaxBodyBytes if smaller). Larger bodies get
	// 413, before the handler runs when Content-Length says so.
	MaxBodyBytes int64
	// MaxInflightBodyBytes bounds the body bytes of all requests in flight
	// (DefaultMaxInflightBodyBytes if 0); see bodyBudget. A request that
	// finds no room waits up to BodyBudgetWait, then gets 503 with
	// Retry-After.
	MaxInflightBodyBytes int64
	// BodyBudgetWait is how long a request waits for room in the budget
	// (DefaultBodyBudgetWait if 0; negative: answer 503 at once).
	BodyBudgetWait time.Duration
	// Prefix, when set, is advertised in /v1/config overrides and routes are
	// served under /v1/{Prefix}/ as well as /v1/.
	Prefix string
	// Warehouse, when set, is the only warehouse a /v1/config request may
	// name; another gets 400. It is advertised as a config default.
	Warehouse string
	// Logger receives server faults (500s). nil means slog.Default().
	Logger *slog.Logger
	// StorageConfig, when set, is vended to clients: the properties they
	// need to read and write the warehouse's files (s3.endpoint, keys,
	// region, addressing), in /v1/config defaults and every
	// LoadTableResult's config. See storage.go; opt-in, it hands out keys.
	StorageConfig map[string]string
	// Clock, when set, is the tokens' clock (minting and expiry), so a
	// test can run a token through its lifetime without waiting for it;
	// time.Now when nil.
	Clock func() time.Time
	// SigV4, when set, turns AWS SigV4 verification on instead of bearer
	// tokens: every route but /v1/oauth/tokens needs a request signed with
	// the verifier's key for its region and service, dated within
	// sigv4.MaxSkew, whose body matches its signature; anything else is
	// 403. Exclusive with Credential.
	SigV4 *sigv4.Verifier
}

// metadataJSONLoader is the optional fast path of a catalog that keeps the
// metadata JSON it wrote (katbench's embedded catalog does): the bytes are
// spliced into the load-table response without decoding and re-encoding.
type metadataJSONLoader interface {
	LoadMetadataJSON(ctx context.Context, ident table.Identifier) (location string, raw []byte, err error)
}

// Server serves one catalog over the Iceberg REST protocol. It is safe for
// concurrent use; concurrent requests are as safe as the catalog's own
// methods are.
type Server struct {
	cat       icecatalog.Catalog
	fastLoad  func(ctx context.Context, ident table.Identifier) (string, []byte, error)
	scope     string
	maxBody   int64
	prefix    string // escaped
	warehouse string
	log       *slog.Logger
	budget    *bodyBudget
	tokens    *auth.Store
	sigv4     *sigv4.Verifier  // nil: no SigV4
	now       func() time.Time // the tokens' clock: time.Now, a fake in tests

	configBody []byte // the /v1/config response, encoded once

	storageConfig     map[string]string // vended to clients; nil for none
	storageConfigJSON []byte            // the same, encoded once ("{}" for none)

	answers answerCache // encoded load answers by metadata location and mode (snapshots.go)

	mu       sync.Mutex
	srvs     []*http.Server
	shutdown bool // Shutdown was called: a later Serve serves nothing
}

var _ http.Handler = (*Server)(nil)

// New returns a server for cat. cat must not be nil.
func New(cat icecatalog.Catalog, opts Options) (*Server, error) {
	if cat == nil {
		return nil, fmt.Errorf("%w: nil catalog", ErrBadOptions)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.TokenTTL == 0 {
		opts.TokenTTL = DefaultTokenTTL
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxInflightBodyBytes == 0 {
		opts.MaxInflightBodyBytes = DefaultMaxInflightBodyBytes
	}
	if opts.BodyBudgetWait == 0 {
		opts.BodyBudgetWait = DefaultBodyBudgetWait
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		cat:       cat,
		scope:     opts.RequiredScope,
		maxBody:   opts.MaxBodyBytes,
		prefix:    url.PathEscape(opts.Prefix),
		warehouse: opts.Warehouse,
		log:       log,
		budget:    newBodyBudget(opts.MaxInflightBodyBytes, opts.BodyBudgetWait),
		now:       time.Now,
		sigv4:     opts.SigV4,
	}
	var creds []auth.Credential
	if opts.Credential != "" {
		c, err := auth.ParseCredential(opts.Credential)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadOptions, err)
		}
		creds = append(creds, c)
	}
	tokens, err := auth.NewStore(creds, opts.TokenTTL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOptions, err)
	}
	s.tokens = tokens
	if opts.Clock != nil {
		s.now = opts.Clock
	}
	if l, ok := cat.(metadataJSONLoader); ok {
		s.fastLoad = l.LoadMetadataJSON
	}
	s.storageConfig = maps.Clone(opts.StorageConfig)
	sc, err := storageConfigJSON(s.storageConfig)
	if err != nil {
		return nil, err
	}
	s.storageConfigJSON = sc
	body, err := json.Marshal(s.configResponse())
	if err != nil {
		return nil, fmt.Errorf("restserver: encode config: %w", err)
	}
	s.configBody = body
	return s, nil
}

// Validate reports the first invalid field of o (wrapping ErrBadOptions),
// so a caller can reject bad options before it creates anything.
func (o Options) Validate() error {
	if o.TokenTTL < 0 || o.MaxBodyBytes < 0 || o.MaxInflightBodyBytes < 0 {
		return fmt.Errorf("%w: negative TokenTTL, MaxBodyBytes or MaxInflightBodyBytes", ErrBadOptions)
	}
	switch o.Prefix {
	case "config", "oauth", "namespaces", "tables", "views", "transactions":
		return fmt.Errorf("%w: prefix %q collides with a route", ErrBadOptions, o.Prefix)
	}
	if o.Prefix != "" {
		if err := validatePart(o.Prefix); err != nil {
			return fmt.Errorf("%w: prefix: %v", ErrBadOptions, err)
		}
	}
	if o.Credential != "" {
		if err := ValidateCredential(o.Credential); err != nil {
			return fmt.Errorf("%w: %v", ErrBadOptions, err)
		}
	}
	if o.SigV4 != nil && o.Credential != "" {
		return fmt.Errorf("%w: SigV4 and Credential are exclusive (both use the Authorization header)", ErrBadOptions)
	}
	if o.RequiredScope != "" && o.Credential == "" {
		return fmt.Errorf("%w: RequiredScope needs a Credential", ErrBadOptions)
	}
	return nil
}

// ValidateCredential checks an "id:secret" credential under internal/auth's
// rule (the gRPC front's too): both parts non-empty, no control characters.
func ValidateCredential(cred string) error {
	_, err := auth.ParseCredential(cred)
	return err
}

// endpoints advertised in /v1/config: every route this server serves.
var endpoints = []string{
	"GET /v1/{prefix}/namespaces",
	"POST /v1/{prefix}/namespaces",
	"GET /v1/{prefix}/namespaces/{namespace}",
	"HEAD /v1/{prefix}/namespaces/{namespace}",
	"DELETE /v1/{prefix}/namespaces/{namespace}",
	"POST /v1/{prefix}/namespaces/{namespace}/properties",
	"GET /v1/{prefix}/namespaces/{namespace}/tables",
	"POST /v1/{prefix}/namespaces/{namespace}/tables",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/tables/rename",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
}

type configResponse struct {
	Defaults  map[string]string `json:"defaults"`
	Overrides map[string]string `json:"overrides"`
	Endpoints []string          `json:"endpoints"`
}

func (s *Server) configResponse() configResponse {
	eps := append([]string(nil), endpoints...)
	if _, ok := s.cat.(registrar); ok {
		eps = append(eps, "POST /v1/{prefix}/namespaces/{namespace}/register")
	}
	if _, ok := s.cat.(icecatalog.TransactionalCatalog); ok {
		eps = append(eps, "POST /v1/{prefix}/transactions/commit")
	}
	if _, ok := s.cat.(viewCatalog); ok {
		eps = append(eps, viewEndpoints...)
	}
	cr := configResponse{Defaults: map[string]string{}, Overrides: map[string]string{}, Endpoints: eps}
	if s.prefix != "" {
		cr.Overrides["prefix"] = s.prefix
	}
	if s.warehouse != "" {
		cr.Defaults["warehouse"] = s.warehouse
	}
	s.addStorageDefaults(cr.Defaults)
	return cr
}

// ServeHTTP routes one request. Order: route (404), method (405), auth
// (401), body limit (413) and budget (503), then the handler, which
// validates its input before touching the catalog. No byte of the body is
// read before the body is admitted, nor, but on the token route, before
// the caller is authorized.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = &timedWriter{ResponseWriter: w, start: time.Now()}
	rt, err := parseRoute(r.URL.EscapedPath(), s.prefix)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !methodAllowed(rt.kind, r.Method) {
		s.writeMethodNotAllowed(w, r, allowed[rt.kind])
		return
	}
	var deferred bool
	if rt.kind == routeToken && s.sigv4 != nil {
		s.writeError(w, r, fmt.Errorf("%w: this server authenticates requests with AWS SigV4, not OAuth2 tokens: sign every request", ErrForbidden))
		return
	}
	if rt.kind != routeToken {
		if deferred, err = s.authorize(r); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	release, ok := s.admitBody(w, r, rt.kind)
	if !ok {
		return
	}
	defer release()
	if deferred {
		if err := s.verifyBufferedSigV4(r); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	switch rt.kind {
	case routeToken:
		s.handleToken(w, r)
	case routeConfig:
		s.handleConfig(w, r)
	case routeNamespaces:
		if r.Method == http.MethodGet {
			s.handleListNamespaces(w, r)
		} else {
			s.handleCreateNamespace(w, r)
		}
	case routeNamespace:
		s.handleNamespace(w, r, rt)
	case routeNamespaceProps:
		s.handleNamespaceProps(w, r, rt)
	case routeTables:
		if r.Method == http.MethodGet {
			s.handleListTables(w, r, rt)
		} else {
			s.handleCreateTable(w, r, rt)
		}
	case routeTable:
		s.handleTable(w, r, rt)
	case routeRename:
		s.handleRename(w, r)
	case routeRegister:
		s.handleRegister(w, r, rt)
	case routeMetrics:
		s.handleMetrics(w, r, rt)
	case routeTransaction:
		s.handleTransaction(w, r)
	case routeViews, routeView, routeRenameView:
		s.handleViews(w, r, rt)
	}
}

func methodAllowed(k routeKind, method string) bool {
	for m := range strings.SplitSeq(allowed[k], ", ") {
		if m == method {
			return true
		}
	}
	return false
}

func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	if wh := r.URL.Query().Get("warehouse"); wh != "" && s.warehouse != "" && wh != s.warehouse {
		s.writeError(w, r, fmt.Errorf("%w: unknown warehouse %q", ErrBadRequest, wh))
		return
	}
	writeRaw(w, http.StatusOK, s.configBody)
}

// writeJSON encodes v and sends it with an exact Content-Length.
func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("restserver: encode response", "err", err)
		code = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"encode response failed","type":"ServerErrorException","code":500}}`)
	}
	writeRaw(w, code, b)
}

// writeRaw sends an already-encoded JSON body.
func writeRaw(w http.ResponseWriter, code int, b []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// writeNoContent sends 204.
func writeNoContent(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNoContent)
}

// Serve accepts connections on l until Shutdown, with keep-alive on and
// timeouts that stop a slow or stuck client from holding a connection
// forever. It returns nil after Shutdown, also when Shutdown came first
// (then it closes l and serves nothing).
func (s *Server) Serve(l net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return l.Close()
	}
	s.srvs = append(s.srvs, hs)
	s.mu.Unlock()
	if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("restserver: serve %s: %w", l.Addr(), err)
	}
	return nil
}

// ListenAndServe listens on addr (host:port) and serves until Shutdown.
func (s *Server) ListenAndServe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("restserver: listen %s: %w", addr, err)
	}
	return s.Serve(l)
}

// Shutdown stops every listener started with Serve and waits, up to ctx's
// deadline, for in-flight requests to finish. It does not close the catalog.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srvs := s.srvs
	s.srvs = nil
	s.shutdown = true
	s.mu.Unlock()
	var errs []error
	for _, hs := range srvs {
		if err := hs.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("restserver: shutdown: %w", err))
		}
	}
	return errors.Join(errs...)
}
