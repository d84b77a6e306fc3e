package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Defaults for zero Options fields.
const (
	DefaultTokenTTL     = time.Hour
	DefaultMaxBodyBytes = 16 << 20
)

// ErrBadOptions is returned by New for an invalid Options value.
var ErrBadOptions = errors.New("restserver: invalid options")

// Options configure a Server. The zero value serves without authentication.
type Options struct {
	// Credential "id:secret" turns authentication on: every route except
	// /v1/oauth/tokens then needs "Authorization: Bearer <token>", and tokens
	// are minted only for this client id and secret. A credential without a
	// colon is a secret with an empty client id.
	Credential string
	// RequiredScope, when set, must be one of the scopes a token request asks
	// for.
	RequiredScope string
	// TokenTTL is how long a minted token stays valid (DefaultTokenTTL if 0).
	TokenTTL time.Duration
	// MaxBodyBytes caps every request body (DefaultMaxBodyBytes if 0);
	// larger bodies get 413.
	MaxBodyBytes int64
	// Prefix, when set, is advertised in /v1/config overrides and routes are
	// served under /v1/{Prefix}/ as well as /v1/.
	Prefix string
	// Warehouse, when set, is the only warehouse a /v1/config request may
	// name; another gets 400. It is advertised as a config default.
	Warehouse string
	// Logger receives server faults (500s). nil means slog.Default().
	Logger *slog.Logger
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
	clientID  string
	secret    string
	scope     string
	maxBody   int64
	prefix    string // escaped
	warehouse string
	log       *slog.Logger
	tokens    *tokenStore
	now       func() time.Time // the tokens' clock: time.Now, a fake in tests

	configBody []byte // the /v1/config response, encoded once

	mu   sync.Mutex
	srvs []*http.Server
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
		tokens:    newTokenStore(opts.TokenTTL),
		now:       time.Now,
	}
	if opts.Credential != "" {
		id, secret, found := strings.Cut(opts.Credential, ":")
		if !found {
			id, secret = "", opts.Credential
		}
		s.clientID, s.secret = id, secret
	}
	if l, ok := cat.(metadataJSONLoader); ok {
		s.fastLoad = l.LoadMetadataJSON
	}
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
	if o.TokenTTL < 0 || o.MaxBodyBytes < 0 {
		return fmt.Errorf("%w: negative TokenTTL or MaxBodyBytes", ErrBadOptions)
	}
	switch o.Prefix {
	case "config", "oauth", "namespaces", "tables":
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
	if o.RequiredScope != "" && o.Credential == "" {
		return fmt.Errorf("%w: RequiredScope needs a Credential", ErrBadOptions)
	}
	return nil
}

// ValidateCredential checks an "id:secret" credential: a non-empty secret,
// and no control characters.
func ValidateCredential(cred string) error {
	_, secret, found := strings.Cut(cred, ":")
	if !found {
		secret = cred
	}
	if secret == "" {
		return errors.New("credential: empty secret (want id:secret)")
	}
	for _, r := range cred {
		if r < 0x20 || r == 0x7f {
			return errors.New("credential: control character")
		}
	}
	return nil
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
}

type configResponse struct {
	Defaults  map[string]string `json:"defaults"`
	Overrides map[string]string `json:"overrides"`
	Endpoints []string          `json:"endpoints"`
}

func (s *Server) configResponse() configResponse {
	cr := configResponse{Defaults: map[string]string{}, Overrides: map[string]string{}, Endpoints: endpoints}
	if s.prefix != "" {
		cr.Overrides["prefix"] = s.prefix
	}
	if s.warehouse != "" {
		cr.Defaults["warehouse"] = s.warehouse
	}
	return cr
}

// ServeHTTP routes one request. Order: route (404), method (405), auth
// (401), then the handler, which validates its input before touching the
// catalog.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, err := parseRoute(r.URL.EscapedPath(), s.prefix)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !methodAllowed(rt.kind, r.Method) {
		s.writeMethodNotAllowed(w, r, allowed[rt.kind])
		return
	}
	if rt.kind == routeToken {
		s.handleToken(w, r)
		return
	}
	if err := s.authorize(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	switch rt.kind {
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
// forever. It returns nil after Shutdown.
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
	s.mu.Unlock()
	var errs []error
	for _, hs := range srvs {
		if err := hs.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("restserver: shutdown: %w", err))
		}
	}
	return errors.Join(errs...)
}
