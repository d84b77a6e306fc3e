package competitors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
)

// RESTTimeout bounds every request a REST competitor makes (headers and
// body), so a stuck server costs one failed operation, never a hang.
const RESTTimeout = 30 * time.Second

// jvmWarmup is the warm-up asked for by servers on a JVM, whose JIT keeps
// compiling well after the first requests.
const jvmWarmup = 30 * time.Second

// restCompetitor is a catalog reached through iceberg-go's REST client. The
// client, the Control round trip and the OAuth token requests share one
// HTTP transport, so Control measures exactly the path the scenarios use.
// Safe for concurrent use.
type restCompetitor struct {
	Base
	client    *http.Client // RESTTimeout-bounded, on the shared transport
	configURL string       // GET target of Control
	auth      rest.AuthManager
	ephemeral bool
	warmup    time.Duration
}

var (
	_ Controller   = (*restCompetitor)(nil)
	_ Ephemeral    = (*restCompetitor)(nil)
	_ WarmupHinter = (*restCompetitor)(nil)
)

// Control does GET {url}/v1/config (with the warehouse and the bearer token
// the catalog uses) on the catalog's own connection pool.
func (c *restCompetitor) Control(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.configURL, nil)
	if err != nil {
		return fmt.Errorf("%s control: %w", c.N, err)
	}
	if c.auth != nil {
		k, v, err := c.auth.AuthHeader()
		if err != nil {
			return fmt.Errorf("%s control: auth: %w", c.N, err)
		}
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s control: %w", c.N, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s control: read: %w", c.N, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s control: GET %s: %s: %.200s", c.N, c.configURL, resp.Status, body)
	}
	return nil
}

// Ephemeral reports whether the catalog's storage is thrown away on Close
// (the in-process `rest` server over a fresh embedded catalog).
func (c *restCompetitor) Ephemeral() bool { return c.ephemeral }

// WarmupHint is the warm-up this server needs before its numbers settle.
func (c *restCompetitor) WarmupHint() time.Duration { return c.warmup }

func init() {
	Register(Factory{
		Name:        "rest",
		Usage:       "[URL]",
		Description: "our Iceberg REST server over a fresh embedded catalog, in-process on loopback (or the server at URL)",
		Durability:  true,
		New:         newREST,
	})
	for _, s := range []struct {
		name, usage, desc string
		needWarehouse     bool
	}{
		{"nessie", "URL WAREHOUSE", "Project Nessie's Iceberg REST catalog (containers/nessie_up.sh)", true},
		{"polaris", "URL WAREHOUSE", "Apache Polaris (containers/polaris_up.sh)", true},
		{"fixture", "URL [WAREHOUSE]", "Apache Iceberg's REST fixture, the reference server (containers/fixture_up.sh)", false},
	} {
		Register(Factory{
			Name:        s.name,
			Usage:       s.usage,
			Description: s.desc + ", through iceberg-go's REST client",
			New: func(ctx context.Context, cfg Config) (Competitor, error) {
				return newRemoteREST(ctx, s.name, s.needWarehouse, cfg)
			},
		})
	}
}

// newREST builds `rest`: with a URL argument it benchmarks that server;
// without, it starts our server on 127.0.0.1 over a fresh embedded catalog
// in cfg.Dir.
func newREST(ctx context.Context, cfg Config) (Competitor, error) {
	if len(cfg.Args) > 0 {
		return newRemoteREST(ctx, "rest", false, cfg)
	}
	if cfg.Dir == "" {
		return nil, errors.New("rest: no directory given")
	}
	dur, err := catalog.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	storageParams := map[string]any{}
	cat, err := openEmbedded(ctx, cfg, dur, storageParams)
	if err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	srv, err := restserver.New(cat, restserver.Options{Logger: warnLogger(cfg)})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("rest: %w", err), cat.Close())
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("rest: listen: %w", err), cat.Close())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	stopServer := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(srv.Shutdown(sctx), <-served, cat.Close())
	}
	// Our own server needs no client settings from the environment
	// (BENCH_REST_PROPS is meant for remote servers: a Polaris prefix or
	// warehouse would only misroute); explicit --prop values still apply.
	// The client reaches the warehouse's files on the same store and
	// transport as the server (for data written through the client); the
	// storage facts are in params.warehouse and params.transport, so the
	// IO properties themselves, keys included, stay out of the params.
	u := "http://" + l.Addr().String()
	clientProps := maps.Clone(cfg.Props)
	if clientProps == nil {
		clientProps = map[string]string{}
	}
	maps.Copy(clientProps, cfg.Storage.IOProps)
	c, err := dialREST(ctx, "rest", u, clientProps)
	if err != nil {
		return nil, errors.Join(err, stopServer())
	}
	for k := range cfg.Storage.IOProps {
		delete(c.P, "prop."+k)
	}
	c.ephemeral = true
	c.P["dir"] = cfg.Dir
	c.P["durability"] = string(dur)
	c.P["server"] = "in-process"
	maps.Copy(c.P, storageParams)
	closeClient := c.CloseFn
	c.CloseFn = func() error { return errors.Join(closeClient(), stopServer()) }
	return c, nil
}

// newRemoteREST builds a competitor for an already running REST server:
// URL and WAREHOUSE from the arguments, else KATBENCH_<NAME>_URL and
// KATBENCH_<NAME>_WAREHOUSE.
func newRemoteREST(ctx context.Context, name string, needWarehouse bool, cfg Config) (Competitor, error) {
	env := "KATBENCH_" + strings.ToUpper(name)
	hint := fmt.Sprintf("start one with containers/%s_up.sh and eval its output, or give `katbench %s URL WAREHOUSE`", name, name)
	if name == "rest" {
		hint = "give `katbench rest URL`, or no URL to start our server in-process"
	}
	if len(cfg.Args) > 2 {
		return nil, fmt.Errorf("%s: too many arguments %q (want URL [WAREHOUSE])", name, cfg.Args)
	}
	u, wh := os.Getenv(env+"_URL"), os.Getenv(env+"_WAREHOUSE")
	if len(cfg.Args) > 0 {
		u, wh = cfg.Args[0], ""
	}
	if len(cfg.Args) > 1 {
		wh = cfg.Args[1]
	}
	if u == "" {
		return nil, fmt.Errorf("%s: no server URL (%s_URL is unset): %s", name, env, hint)
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, fmt.Errorf("%s: URL %q is not an http(s) URL: %s", name, u, hint)
	}
	p := props(cfg, name)
	if wh != "" {
		p["warehouse"] = wh
	}
	if needWarehouse && p["warehouse"] == "" {
		return nil, fmt.Errorf("%s: no warehouse (%s_WAREHOUSE is unset): %s", name, env, hint)
	}
	c, err := dialREST(ctx, name, strings.TrimRight(u, "/"), p)
	if err != nil {
		// Only a server that could not be reached suggests starting one; a
		// refused credential or warehouse says so on its own.
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			return nil, fmt.Errorf("%w (is the server up? %s)", err, hint)
		}
		return nil, err
	}
	if name == "nessie" || name == "polaris" || name == "fixture" {
		c.warmup = jvmWarmup
	}
	return c, nil
}

// props merges client properties, later winning: BENCH_REST_PROPS,
// KATBENCH_<NAME>_PROPS, then cfg.Props (--prop). Malformed entries are
// reported on cfg.Log and skipped.
func props(cfg Config, name string) map[string]string {
	p := map[string]string{}
	for _, env := range []string{"BENCH_REST_PROPS", "KATBENCH_" + strings.ToUpper(name) + "_PROPS"} {
		for kv := range strings.SplitSeq(os.Getenv(env), ",") {
			if kv = strings.TrimSpace(kv); kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				cfg.Logf("%s: ignoring %s entry %q (want k=v)", name, env, kv)
				continue
			}
			p[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	maps.Copy(p, cfg.Props)
	return p
}

// secretProps are never copied into result params.
var secretProps = map[string]bool{
	"credential": true, "token": true,
	"s3.secret-access-key": true, "s3.session-token": true,
}

// dialREST connects iceberg-go's REST client to base with props mapped to
// its options. Known keys: credential (id:secret), token, scope, warehouse,
// prefix, oauth2-server-uri, audience, resource, header.<Name>; everything
// else is handed to the client as an additional property (table IO
// settings such as s3.endpoint).
func dialREST(ctx context.Context, name, base string, p map[string]string) (*restCompetitor, error) {
	tr := newRESTTransport()
	client := &http.Client{Transport: tr}
	c := &restCompetitor{client: client}

	var opts []rest.Option
	extra := iceberg.Properties{}
	headers := map[string]string{}
	params := map[string]any{"url": base, "client": "iceberg-go rest", "timeout": RESTTimeout.String()}
	for k, v := range p {
		if !secretProps[k] {
			params["prop."+k] = v
		}
		switch {
		case k == "credential", k == "token", k == "scope", k == "oauth2-server-uri", k == "audience", k == "resource":
			// handled by the auth manager below
		case k == "warehouse":
			opts = append(opts, rest.WithWarehouseLocation(v))
		case k == "prefix":
			opts = append(opts, rest.WithPrefix(v))
		case strings.HasPrefix(k, "header."):
			headers[strings.TrimPrefix(k, "header.")] = v
		default:
			extra[k] = v
		}
	}
	auth, err := newAuth(base, p, client)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if auth != nil {
		opts = append(opts, rest.WithAuthManager(auth))
		params["auth"] = "oauth2"
	}
	if len(headers) > 0 {
		opts = append(opts, rest.WithHeaders(headers))
	}
	if len(extra) > 0 {
		opts = append(opts, rest.WithAdditionalProps(extra))
	}
	opts = append(opts, rest.WithCustomTransport(tr))

	cat, err := rest.NewCatalog(ctx, name, base, opts...)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("%s: connect to %s: %w", name, base, err)
	}
	cu := base + "/v1/config"
	if wh := p["warehouse"]; wh != "" {
		cu += "?" + url.Values{"warehouse": {wh}}.Encode()
	}
	c.Base = Base{N: name, Cat: cat, P: params, CloseFn: func() error {
		err := cat.Close()
		tr.CloseIdleConnections()
		return err
	}}
	c.configURL = cu
	c.auth = auth
	return c, nil
}

// newRESTTransport is the transport of one REST competitor: keep-alive on,
// enough idle connections per host that 32 workers reuse theirs instead of
// reconnecting, and every request bounded by RESTTimeout.
func newRESTTransport() *timeoutTransport {
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: RESTTimeout,
		ExpectContinueTimeout: time.Second,
	}
	return &timeoutTransport{base: base, timeout: RESTTimeout}
}

// timeoutTransport bounds each request, body included, by timeout. It is
// the client-side timeout iceberg-go's REST client lacks: that client's
// http.Client is its own, so the bound has to live in the transport.
type timeoutTransport struct {
	base    *http.Transport
	timeout time.Duration
}

func (t *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// CloseIdleConnections releases the pooled connections.
func (t *timeoutTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// cancelBody releases the request's timeout when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// newAuth returns the auth manager for props: a static bearer token
// ("token"), OAuth2 client credentials ("credential" id:secret, with
// "scope", default "catalog", against "oauth2-server-uri", default
// {base}/v1/oauth/tokens), or nil for none. Tokens are fetched lazily,
// cached and refreshed before expiry by golang.org/x/oauth2, over client.
func newAuth(base string, p map[string]string, client *http.Client) (rest.AuthManager, error) {
	if tok := p["token"]; tok != "" {
		return &tokenAuth{src: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"})}, nil
	}
	cred := p["credential"]
	if cred == "" {
		return nil, nil
	}
	id, secret, found := strings.Cut(cred, ":")
	if !found {
		id, secret = "", cred
	}
	tokenURL := base + "/v1/oauth/tokens"
	if u := p["oauth2-server-uri"]; u != "" {
		tokenURL = u
	}
	scope := "catalog"
	if s := p["scope"]; s != "" {
		scope = s
	}
	cc := &clientcredentials.Config{
		ClientID: id, ClientSecret: secret, TokenURL: tokenURL,
		Scopes: []string{scope}, AuthStyle: oauth2.AuthStyleInParams,
	}
	for _, k := range []string{"audience", "resource"} {
		if v := p[k]; v != "" {
			if cc.EndpointParams == nil {
				cc.EndpointParams = url.Values{}
			}
			cc.EndpointParams.Set(k, v)
		}
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return &tokenAuth{src: cc.TokenSource(ctx)}, nil
}

// tokenAuth is a rest.AuthManager over an oauth2.TokenSource (which caches
// and refreshes; safe for concurrent use).
type tokenAuth struct{ src oauth2.TokenSource }

var _ rest.AuthManager = (*tokenAuth)(nil)

func (a *tokenAuth) AuthHeader() (string, string, error) {
	tok, err := a.src.Token()
	if err != nil {
		return "", "", fmt.Errorf("get token: %w", err)
	}
	return "Authorization", "Bearer " + tok.AccessToken, nil
}

// warnLogger sends the in-process server's fault log to cfg.Log.
func warnLogger(cfg Config) *slog.Logger {
	var w io.Writer = io.Discard
	if cfg.Log != nil {
		w = cfg.Log
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
