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
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/aws/aws-sdk-go-v2/aws"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/serve"
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
	signer    *awsSigner // SigV4 (rest.sigv4-enabled); nil when off
	ephemeral bool
	warmup    time.Duration
	mode      string     // durability of the in-process catalog; "" for a remote server
	direct    directLoad // the conditional load katbench sends itself (revalidate.go)
	wire      *wireCount // bytes over the client's connections
	timing    *reqTiming // where the client's requests spent their time
	base      string     // the server's base URL
}

var (
	_ Controller    = (*restCompetitor)(nil)
	_ Ephemeral     = (*restCompetitor)(nil)
	_ WarmupHinter  = (*restCompetitor)(nil)
	_ Durable       = (*restCompetitor)(nil)
	_ WireCounter   = (*restCompetitor)(nil)
	_ Served        = (*restCompetitor)(nil)
	_ TimeSplitter  = (*restCompetitor)(nil)
	_ AuthRefresher = (*restCompetitor)(nil)
)

// AuthRefreshes are the client's token renewals so far (none for a
// static token, SigV4 or no auth).
func (c *restCompetitor) AuthRefreshes() AuthRefreshes {
	if a, ok := c.auth.(*refreshingToken); ok {
		return a.AuthRefreshes()
	}
	return AuthRefreshes{}
}

// WireBytes is the bytes moved over the competitor's connections so far.
func (c *restCompetitor) WireBytes() int64 { return c.wire.WireBytes() }

// ServerAddr is the host:port of the server the client talks to.
func (c *restCompetitor) ServerAddr() string { return hostPort(c.base) }

// TimeSplit is where the client's requests have spent their time so far.
func (c *restCompetitor) TimeSplit() TimeSplit { return c.timing.TimeSplit() }

// Control does GET {url}/v1/config (with the warehouse and the bearer token
// the catalog uses) on the catalog's own connection pool.
func (c *restCompetitor) Control(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.configURL, nil)
	if err != nil {
		return fmt.Errorf("%s control: %w", c.TargetName, err)
	}
	if c.auth != nil {
		k, v, err := c.auth.AuthHeader()
		if err != nil {
			return fmt.Errorf("%s control: auth: %w", c.TargetName, err)
		}
		req.Header.Set(k, v)
	}
	if c.signer != nil {
		if err := c.signer.sign(req); err != nil {
			return fmt.Errorf("%s control: %w", c.TargetName, err)
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s control: %w", c.TargetName, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s control: read: %w", c.TargetName, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s control: GET %s: %s: %.200s", c.TargetName, c.configURL, resp.Status, body)
	}
	return nil
}

// Ephemeral reports whether the catalog's storage is thrown away on Close
// (the in-process `rest` server over a fresh embedded catalog).
func (c *restCompetitor) Ephemeral() bool { return c.ephemeral }

// WarmupHint is the warm-up this server needs before its numbers settle.
func (c *restCompetitor) WarmupHint() time.Duration { return c.warmup }

// DurabilityMode is the in-process catalog's mode; "" for a remote server,
// which runs in its own.
func (c *restCompetitor) DurabilityMode() string { return c.mode }

func init() {
	Register(Factory{
		Name:        "rest",
		Usage:       "[URL]",
		Description: "our Iceberg REST server over a fresh embedded catalog on loopback, in a child `katbench serve rest` while server cost is measured (--server-cost), else in-process (or the server at URL)",
		Durability:  true,
		Store:       StoreBbolt,
		Storage:     true,
		Props:       true,
		Serve:       "rest",
		Example: `  katbench rest --quick
  katbench serve rest --addr 127.0.0.1:8181 & katbench rest http://127.0.0.1:8181 --quick
  katbench rest http://127.0.0.1:8181 --prop credential=CLIENT_ID:SECRET --quick
  katbench rest https://glue.eu-north-1.amazonaws.com/iceberg --prop warehouse=ACCOUNT_ID --prop rest.sigv4-enabled=true --prop rest.signing-name=glue --prop rest.signing-region=eu-north-1 --quick`,
		Env:       "KATBENCH_REST_PROPS and BENCH_REST_PROPS (client properties k=v,…: credential, token, scope, header.*, rest.sigv4-enabled, rest.signing-region, rest.signing-name)",
		CheckArgs: checkURLArgs(1),
		New:       newREST,
	})
	for _, s := range remoteRESTServers {
		registerRemoteREST(s)
	}
}

// registerRemoteREST registers one REST server reached by URL (the table
// above, and servers registered from their own files such as rustberg.go).
func registerRemoteREST(s remoteRESTServer) {
	Register(Factory{
		Name:          s.name,
		Usage:         s.usage,
		Description:   s.desc + ", through iceberg-go's REST client",
		Store:         s.store,
		SetupParallel: s.setupParallel,
		Props:         true,
		Example:       s.helpExample(),
		Env: fmt.Sprintf("%[1]s_URL and %[1]s_WAREHOUSE (URL and WAREHOUSE when no argument is given; %[2]s prints them), "+
			"%[1]s_PROPS and BENCH_REST_PROPS (client properties k=v,…: credential, token, scope, header.*, rest.sigv4-enabled, rest.signing-region, rest.signing-name)", envPrefix(s.name), s.up),
		CheckArgs: checkURLArgs(2),
		New: func(ctx context.Context, cfg Config) (Competitor, error) {
			c, err := newRemoteREST(ctx, s, cfg)
			if err != nil {
				return nil, err
			}
			c.(*restCompetitor).warmup = s.warmup
			return c, nil
		},
	})
}

// remoteRESTServer describes a REST catalog katbench reaches by URL.
type remoteRESTServer struct {
	name, usage, desc string
	needWarehouse     bool
	// example is what a correct base URL looks like, for the error a wrong
	// one gets (the Iceberg REST API lives under a server-specific path).
	example string
	// warmup is the one-time server warm-up the JVM servers ask for.
	warmup time.Duration
	// direct is the arguments of a run against a server given by hand
	// (URL, WAREHOUSE, props), for Factory.Example.
	direct string
	// setupParallel is Factory.SetupParallel: the fixture's JDBC catalog
	// on SQLite answers concurrent writers with SQLITE_BUSY, so its dataset
	// is built by one worker.
	setupParallel int
	// store is Factory.Store: what the server keeps its catalog in when
	// started by up, the command below.
	store string
	// up is the command that starts the server and prints its exports.
	up string
	// hint says how to reach a server when none was given or none
	// answers; "" for the one built from up.
	hint string
}

var remoteRESTServers = []remoteRESTServer{
	{
		name: "nessie", usage: "URL WAREHOUSE", needWarehouse: true,
		desc:    "Project Nessie's Iceberg REST catalog, in-memory version store (containers/nessie_up.sh)",
		example: nessieExample, warmup: jvmWarmup, direct: nessieDirect,
		store: StoreInMemory, up: "containers/nessie_up.sh",
	},
	{
		name: "nessie-pg", usage: "URL WAREHOUSE", needWarehouse: true,
		desc:    "Project Nessie's Iceberg REST catalog, JDBC2 version store on PostgreSQL (containers/nessie_up.sh --store jdbc)",
		example: nessieExample, warmup: jvmWarmup, direct: nessieDirect,
		store: StorePostgreSQL, up: "containers/nessie_up.sh --store jdbc",
	},
	{
		name: "nessie-rocks", usage: "URL WAREHOUSE", needWarehouse: true,
		desc:    "Project Nessie's Iceberg REST catalog, RocksDB version store (containers/nessie_up.sh --store rocksdb)",
		example: nessieExample, warmup: jvmWarmup, direct: nessieDirect,
		store: StoreRocksDB, up: "containers/nessie_up.sh --store rocksdb",
	},
	{
		name: "polaris", usage: "URL WAREHOUSE", needWarehouse: true,
		desc:    "Apache Polaris, in-memory persistence (containers/polaris_up.sh)",
		example: polarisExample, warmup: jvmWarmup, direct: polarisDirect,
		store: StoreInMemory, up: "containers/polaris_up.sh",
	},
	{
		name: "polaris-pg", usage: "URL WAREHOUSE", needWarehouse: true,
		desc:    "Apache Polaris, relational-jdbc persistence on PostgreSQL (containers/polaris_up.sh --store postgres)",
		example: polarisExample, warmup: jvmWarmup, direct: polarisDirect,
		store: StorePostgreSQL, up: "containers/polaris_up.sh --store postgres",
	},
	{
		name: "fixture", usage: "URL [WAREHOUSE]", needWarehouse: false,
		desc:    "Apache Iceberg's REST fixture, the reference server, JDBC catalog on SQLite (containers/fixture_up.sh)",
		example: fixtureExample, warmup: jvmWarmup, direct: fixtureDirect,
		setupParallel: 1,
		store:         StoreSQLite, up: "containers/fixture_up.sh",
	},
	{
		name: "fixture-pg", usage: "URL [WAREHOUSE]", needWarehouse: false,
		desc:    "Apache Iceberg's REST fixture, JDBC catalog on PostgreSQL (containers/fixture_up.sh --store postgres)",
		example: fixtureExample, warmup: jvmWarmup, direct: fixtureDirect,
		store: StorePostgreSQL, up: "containers/fixture_up.sh --store postgres",
	},
}

const (
	nessieExample  = "http://HOST:19120/iceberg (Nessie serves Iceberg REST under /iceberg)"
	polarisExample = "http://HOST:8281/api/catalog (Polaris serves Iceberg REST under /api/catalog; containers/polaris_up.sh listens on 8281)"
	fixtureExample = "http://HOST:8181 (the fixture serves Iceberg REST at the root)"
)

// What a run against each server given by hand takes (see direct).
const (
	nessieDirect  = "http://127.0.0.1:19120/iceberg warehouse"
	polarisDirect = "http://127.0.0.1:8281/api/catalog katbench --prop credential=CLIENT_ID:SECRET"
	fixtureDirect = "http://127.0.0.1:8181"
)

// helpExample is the --help examples of s: started by its up script, given by
// hand, and beside our REST front.
func (s remoteRESTServer) helpExample() string {
	return fmt.Sprintf("  eval \"$(%s)\"; katbench %s --quick\n  katbench %s %s --quick\n  katbench run rest %s --quick",
		s.up, s.name, s.name, s.direct, s.name)
}

// authHint says how to give credentials when a server refused the
// client's (or wanted some and got none); "" for any other error.
func authHint(name string, err error, hadAuth, signed bool) string {
	if !errors.Is(err, rest.ErrUnauthorized) && !errors.Is(err, rest.ErrForbidden) {
		return ""
	}
	if signed {
		return fmt.Sprintf(" (the server refused the SigV4-signed request: check the AWS credentials the chain found, --prop %s and --prop %s)",
			propSignRegion, propSignName)
	}
	what := "the server wants credentials"
	if hadAuth {
		what = "the server refused the credentials given"
	}
	return fmt.Sprintf(" (%s: give --prop credential=CLIENT_ID:SECRET for OAuth2 client credentials, or --prop token=TOKEN, "+
		"or set %s_PROPS=credential=…)", what, envPrefix(name))
}

// ErrNotRESTCatalog is returned when a URL answers HTTP but GET
// {URL}/v1/config is not an Iceberg REST config response.
var ErrNotRESTCatalog = errors.New("not an Iceberg REST catalog base URL")

// checkURLArgs accepts at most max arguments, the first an http(s) URL with
// a host.
func checkURLArgs(max int) func([]string) error {
	return func(args []string) error {
		if len(args) > max {
			return fmt.Errorf("too many arguments %q (at most %d)", args, max)
		}
		if len(args) > 0 {
			return checkBaseURL(args[0])
		}
		return nil
	}
}

// checkBaseURL accepts an absolute http(s) URL with a host and no query or
// fragment (the client appends /v1/...).
func checkBaseURL(u string) error {
	pu, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("URL %q is not an http(s) URL like http://127.0.0.1:8281/api/catalog: %w", u, err)
	}
	if (pu.Scheme != "http" && pu.Scheme != "https") || pu.Hostname() == "" || pu.RawQuery != "" || pu.Fragment != "" {
		return fmt.Errorf("URL %q is not an http(s) URL like http://127.0.0.1:8281/api/catalog (scheme, host, optional path; no query)", u)
	}
	if p := pu.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("URL %q: port %q is not 1..65535", u, p)
		}
	}
	return nil
}

// probeConfig does an unauthenticated GET {base}/v1/config before the REST
// client is built, so a wrong base path fails with what was expected instead
// of iceberg-go's bare "REST error". An answer that needs authentication
// (401, 403) passes: the path exists. Connection errors are returned as is.
func probeConfig(ctx context.Context, client *http.Client, name, base, example string) error {
	u := base + "/v1/config"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: GET %s: %w", name, u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // keep the connection reusable
	want := "the Iceberg REST base URL"
	if example != "" {
		want = example
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return fmt.Errorf("%s: GET %s answered %s: %w; expected %s", name, u, resp.Status, ErrNotRESTCatalog, want)
	case resp.StatusCode/100 == 2:
		if t := strings.TrimSpace(string(body)); !strings.HasPrefix(t, "{") {
			return fmt.Errorf("%s: GET %s answered %s with %q, not a JSON config: %w; expected %s",
				name, u, resp.Status, truncate(t, 80), ErrNotRESTCatalog, want)
		}
	}
	// Other statuses (a warehouse-specific 400, a 5xx) are left to the
	// client, whose error carries the server's own message.
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// newREST builds `rest`: with a URL argument it benchmarks that server;
// without, it starts our server on 127.0.0.1 over a fresh embedded catalog
// in cfg.Dir.
func newREST(ctx context.Context, cfg Config) (Competitor, error) {
	if len(cfg.Args) > 0 {
		return newRemoteREST(ctx, remoteRESTServer{name: "rest", store: StoreUnknown, // a server of its own: katbench cannot tell
			hint: "give `katbench rest URL`, or no URL to start our server in-process"}, cfg)
	}
	return newOurREST(ctx, cfg, "rest", nil)
}

// newOurREST builds competitor name: our REST front over a fresh embedded
// catalog, served by a child process (Config.ServeChild) or in-process,
// reached by iceberg-go's REST client. With key the front verifies SigV4
// signatures made with key and the client signs every request with it.
func newOurREST(ctx context.Context, cfg Config, name string, key *sigV4Key) (Competitor, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%s: no directory given", name)
	}
	dur, err := catalog.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(cfg.ServeChild) > 0 && cfg.Storage.Warehouse == "" {
		return newChildREST(ctx, cfg, name, dur, key)
	}
	storageParams := map[string]any{}
	cat, err := openEmbedded(ctx, cfg, dur, storageParams)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	opts := restserver.Options{Logger: warnLogger(cfg)}
	if key != nil {
		if opts.SigV4, err = key.verifier(); err != nil {
			return nil, errors.Join(fmt.Errorf("%s: %w", name, err), cat.Close())
		}
	}
	srv, err := restserver.New(cat, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", name, err), cat.Close())
	}
	run, err := serve.Listen("127.0.0.1:0", srv)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", name, err), cat.Close())
	}
	stopServer := func() error { return errors.Join(run.Stop(serve.Grace), cat.Close()) }
	// Our own server needs no client settings from the environment
	// (BENCH_REST_PROPS is meant for remote servers: a Polaris prefix or
	// warehouse would only misroute); explicit --prop values still apply.
	// The client reaches the warehouse's files on the same store and
	// transport as the server (for data written through the client); the
	// storage facts are in params.warehouse and params.transport, so the
	// IO properties themselves, keys included, stay out of the params.
	u := "http://" + run.Addr().String()
	clientProps := maps.Clone(cfg.Props)
	if clientProps == nil {
		clientProps = map[string]string{}
	}
	maps.Copy(clientProps, cfg.Storage.IOProps)
	maps.Copy(clientProps, key.clientProps())
	c, err := dialREST(ctx, name, "", u, clientProps, cfg.Env.S3, key.credentials())
	if err != nil {
		return nil, errors.Join(err, stopServer())
	}
	for k := range cfg.Storage.IOProps {
		delete(c.LineParams, "prop."+k)
	}
	c.ephemeral = true
	c.mode = string(dur)
	c.LineParams["dir"] = cfg.Dir
	c.LineParams["durability"] = string(dur)
	c.LineParams["server"] = "in-process"
	maps.Copy(c.LineParams, storageParams)
	closeClient := c.CloseFn
	c.CloseFn = func() error { return errors.Join(closeClient(), stopServer()) }
	return c, nil
}

// newChildREST builds competitor name over `katbench serve rest` run as a
// child process on a fresh catalog (see Config.ServeChild), verifying
// SigV4 with key when key is not nil.
func newChildREST(ctx context.Context, cfg Config, name string, dur catalog.Durability, key *sigV4Key) (Competitor, error) {
	auth := key.childAuth()
	ch, err := startChild(ctx, cfg, "rest", auth)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := maps.Clone(cfg.Props)
	if p == nil {
		p = map[string]string{}
	}
	maps.Copy(p, key.clientProps())
	c, err := dialREST(ctx, name, "", "http://"+ch.addr, p, cfg.Env.S3, key.credentials())
	if err != nil {
		return nil, errors.Join(err, ch.stop())
	}
	c.ephemeral = true
	c.mode = string(dur)
	c.LineParams["dir"] = cfg.Dir
	c.LineParams["durability"] = string(dur)
	c.LineParams["server"] = "child"
	c.LineParams["server_pid"] = ch.pid()
	l := &childLoader{cfg: cfg, front: "rest", dur: dur, ch: ch, auth: auth, ready: c.Control,
		restarted: func(pid int) { c.LineParams["server_pid"] = pid; c.client.CloseIdleConnections() }}
	closeClient := c.CloseFn
	c.CloseFn = func() error { return errors.Join(closeClient(), l.stop()) }
	return &childREST{restCompetitor: c, childLoader: l}, nil
}

// childREST is `rest` served by a child process, whose setup can load
// the child's store in bulk (BulkCreator).
type childREST struct {
	*restCompetitor
	*childLoader
}

var _ BulkCreator = (*childREST)(nil)

// newRemoteREST builds a competitor for an already running REST server:
// URL and WAREHOUSE from the arguments, else from cfg.Env
// (KATBENCH_<NAME>_URL and KATBENCH_<NAME>_WAREHOUSE).
func newRemoteREST(ctx context.Context, s remoteRESTServer, cfg Config) (Competitor, error) {
	name, needWarehouse := s.name, s.needWarehouse
	env := envPrefix(name)
	hint := s.hint
	if hint == "" {
		hint = fmt.Sprintf("start one with `eval \"$(%s)\"`, or give `katbench %s URL WAREHOUSE`", s.up, name)
	}
	if len(cfg.Args) > 2 {
		return nil, fmt.Errorf("%s: too many arguments %q (want URL [WAREHOUSE])", name, cfg.Args)
	}
	u, wh := cfg.Env.URL, cfg.Env.Warehouse
	if len(cfg.Args) > 0 {
		u, wh = cfg.Args[0], ""
	}
	if len(cfg.Args) > 1 {
		wh = cfg.Args[1]
	}
	if u == "" {
		return nil, fmt.Errorf("%s: no server URL (%s_URL is unset): %s", name, env, hint)
	}
	if err := checkBaseURL(u); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", name, err, hint)
	}
	p := props(cfg, name)
	if wh != "" {
		p["warehouse"] = wh
	}
	if needWarehouse && p["warehouse"] == "" {
		return nil, fmt.Errorf("%s: no warehouse (%s_WAREHOUSE is unset): %s", name, env, hint)
	}
	c, err := dialREST(ctx, name, s.example, strings.TrimRight(u, "/"), p, cfg.Env.S3, nil)
	if err != nil {
		// Only a server that could not be reached suggests starting one; a
		// refused credential or warehouse says so on its own.
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			return nil, fmt.Errorf("%w (is the server up? %s)", err, hint)
		}
		if s.up != "" {
			return nil, fmt.Errorf("%w (the server answered but refused the catalog: is it the one `%s` started, bootstrapped?)", err, s.up)
		}
		return nil, err
	}
	c.LineParams["store"] = s.store
	// The up scripts export the version of the server they started.
	if v := cfg.Env.ServerVersion; v != "" {
		c.LineParams["server_version"] = v
	}
	return c, nil
}

// props merges client properties, later winning: cfg.Env.Props
// (BENCH_REST_PROPS, KATBENCH_<NAME>_PROPS), then cfg.Props (--prop).
// Malformed entries are reported on cfg.Log (redacted:
// results.RedactProp) and skipped.
func props(cfg Config, name string) map[string]string {
	p := map[string]string{}
	for _, ep := range cfg.Env.Props {
		env := ep.Var
		for kv := range strings.SplitSeq(ep.Value, ",") {
			if kv = strings.TrimSpace(kv); kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				cfg.Logf("%s: ignoring %s entry %q (want k=v)", name, env, results.RedactProp(kv))
				continue
			}
			p[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	maps.Copy(p, cfg.Props)
	return p
}

// dialREST connects iceberg-go's REST client to base with props mapped to
// its options; example is what a correct base URL of this server looks
// like, for the error a wrong one gets ("" when there is none to show). Known keys: credential (id:secret), token, scope, warehouse,
// prefix, oauth2-server-uri, audience, resource, header.<Name>; everything
// else is handed to the client as an additional property (table IO
// settings such as s3.endpoint). fallbacks (Env.S3) go to the client's IO
// too, but not on the line. keys, when not nil, are the SigV4 credentials
// instead of the AWS chain's.
func dialREST(ctx context.Context, name, example, base string, p, fallbacks map[string]string, keys aws.CredentialsProvider) (*restCompetitor, error) {
	tr := newRESTTransport()
	client := &http.Client{Transport: tr}
	c := &restCompetitor{client: client, wire: tr.wire, timing: &tr.timing}

	var opts []rest.Option
	extra := iceberg.Properties{}
	maps.Copy(extra, fallbacks)
	headers := map[string]string{}
	params := map[string]any{"url": base, "client": "iceberg-go rest", "timeout": RESTTimeout.String()}
	for k, v := range p {
		if k != "credential" && k != "token" { // params.auth says how the client authenticates
			params["prop."+k] = results.RedactValue(k, v)
		}
		switch {
		case k == "credential", k == "token", k == "scope", k == "oauth2-server-uri", k == "audience", k == "resource":
			// handled by the auth manager below
		case k == propSigV4, k == propSignRegion, k == propSignName:
			// handled by sigV4Options below
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
	if err := probeConfig(ctx, client, name, base, example); err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	sigOpts, signer, err := sigV4Options(ctx, p, keys)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if signer != nil {
		opts = append(opts, sigOpts...)
		params["auth"] = "sigv4"
		params["prop."+propSignRegion] = signer.Region()
	}
	auth, err := newAuth(base, p, client)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rt http.RoundTripper = tr
	if rt2, ok := auth.(*refreshingToken); ok {
		rt = &retryTransport{base: tr, auth: rt2}
		client = &http.Client{Transport: rt}
		c.client = client
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
	opts = append(opts, rest.WithCustomTransport(rt))

	cat, err := rest.NewCatalog(ctx, name, base, opts...)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("%s: connect to %s: %w%s", name, base, err, authHint(name, err, auth != nil, signer != nil))
	}
	cu := base + "/v1/config"
	if wh := p["warehouse"]; wh != "" {
		cu += "?" + url.Values{"warehouse": {wh}}.Encode()
	}
	c.Base = Base{TargetName: name, Cat: cat, LineParams: params, CloseFn: func() error {
		err := cat.Close()
		tr.CloseIdleConnections()
		return err
	}}
	c.configURL = cu
	c.base = base
	c.auth = auth
	c.signer = signer
	c.direct = directLoad{base: base, prefix: p["prefix"], headers: headers}
	return c, nil
}

// newRESTTransport is the transport of one REST competitor: keep-alive on,
// enough idle connections per host that 32 workers reuse theirs instead of
// reconnecting, and every request bounded by RESTTimeout.
func newRESTTransport() *timeoutTransport {
	wire := &wireCount{}
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           wire.dialer((&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext),
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: RESTTimeout,
		ExpectContinueTimeout: time.Second,
	}
	return &timeoutTransport{base: base, timeout: RESTTimeout, wire: wire}
}

// timeoutTransport bounds each request, body included, by timeout. It is
// the client-side timeout iceberg-go's REST client lacks: that client's
// http.Client is its own, so the bound has to live in the transport.
type timeoutTransport struct {
	base    *http.Transport
	timeout time.Duration
	wire    *wireCount // every connection base dials
	timing  reqTiming  // where the requests' time went
}

func (t *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	start := time.Now()
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	t.timing.observe(start, time.Now(), resp)
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
// {base}/v1/oauth/tokens), or nil for none. Client-credential tokens are
// fetched lazily over client, cached, and renewed before they expire and
// after the server refuses one (refreshingToken).
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
	return &refreshingToken{fetch: contextFetcher{ctx: ctx, fetch: cc.Token}, now: time.Now}, nil
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
