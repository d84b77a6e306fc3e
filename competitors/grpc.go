package competitors

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"google.golang.org/grpc"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/serve"
)

// grpcCompetitor is a catalog reached through katbench's gRPC front
// (catalog/grpcfront). Control is the front's empty RPC on the connection
// the scenarios use; metadata resolution goes over the wire. Safe for
// concurrent use.
type grpcCompetitor struct {
	Base
	client    *grpcfront.Client
	ephemeral bool
	mode      string // durability of the in-process catalog; "" for a remote server
	wire      *wireCount
	timing    *reqTiming // where the client's calls spent their time
	addr      string     // the server's host:port
}

var _ TimeSplitter = (*grpcCompetitor)(nil)

// TimeSplit is where the client's calls spent their time so far: a unary
// call's whole round trip counts as its head (gRPC does not tell the
// reply's first byte apart), and the server's own time comes from the
// server-timing trailer our front sends.
func (c *grpcCompetitor) TimeSplit() TimeSplit { return c.timing.TimeSplit() }

// WireBytes is the bytes moved over the client's connection so far.
func (c *grpcCompetitor) WireBytes() int64 { return c.wire.WireBytes() }

// ServerAddr is the host:port of the server the client talks to.
func (c *grpcCompetitor) ServerAddr() string { return c.addr }

var (
	_ Controller       = (*grpcCompetitor)(nil)
	_ MetadataResolver = (*grpcCompetitor)(nil)
	_ Ephemeral        = (*grpcCompetitor)(nil)
	_ Durable          = (*grpcCompetitor)(nil)
)

// Control is one empty unary RPC on the catalog's connection.
func (c *grpcCompetitor) Control(ctx context.Context) error { return c.client.Control(ctx) }

// ResolveMetadata resolves over the wire; the client parses each metadata
// location once.
func (c *grpcCompetitor) ResolveMetadata(ctx context.Context, ident table.Identifier) (table.Metadata, error) {
	return c.client.ResolveMetadata(ctx, ident)
}

// Ephemeral reports whether the catalog's storage is thrown away on Close
// (the in-process server over a fresh embedded catalog).
func (c *grpcCompetitor) Ephemeral() bool { return c.ephemeral }

// DurabilityMode is the in-process catalog's mode; "" for a remote server,
// which runs in its own.
func (c *grpcCompetitor) DurabilityMode() string { return c.mode }

func init() {
	Register(Factory{
		Name:        "grpc",
		Usage:       "[HOST:PORT]",
		Description: "our gRPC front over a fresh embedded catalog on loopback, in a child `katbench serve grpc` while server cost is measured (--server-cost), else in-process (or the server at HOST:PORT, env KATBENCH_GRPC_URL)",
		Durability:  true,
		Store:       StoreBbolt,
		Storage:     true,
		Props:       true,
		Example: `  katbench grpc --quick
  katbench serve grpc --addr 127.0.0.1:9090 & katbench grpc 127.0.0.1:9090 --quick`,
		Env:       "KATBENCH_GRPC_URL (the server's HOST:PORT when no argument is given), KATBENCH_GRPC_PROPS and BENCH_REST_PROPS (client properties k=v,…: credential, token)",
		CheckArgs: checkGRPCArgs,
		New:       newGRPC,
		Serve:     "grpc",
		ServeArg:  func(addr string) string { return addr },
	})
}

// checkGRPCArgs accepts at most one argument, a HOST:PORT address.
func checkGRPCArgs(args []string) error {
	if len(args) > 1 {
		return fmt.Errorf("too many arguments %q (want [HOST:PORT])", args)
	}
	if len(args) == 1 {
		_, port, err := net.SplitHostPort(args[0])
		if err != nil {
			return fmt.Errorf("address %q is not HOST:PORT: %w", args[0], err)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("address %q: want HOST:PORT with a port 1..65535", args[0])
		}
	}
	return nil
}

// newGRPC builds `grpc`: with HOST:PORT (argument, else cfg.Env.URL)
// it benchmarks that server; without, it starts the front on 127.0.0.1
// over a fresh embedded catalog in cfg.Dir. Client properties come from
// --prop and the environment as for REST: credential (id:secret) or token
// for auth; the rest are table IO properties.
func newGRPC(ctx context.Context, cfg Config) (Competitor, error) {
	if len(cfg.Args) > 1 {
		return nil, fmt.Errorf("grpc: too many arguments %q (want [HOST:PORT])", cfg.Args)
	}
	p := props(cfg, "grpc")
	opts, params, err := grpcClientOptions(p)
	if err != nil {
		return nil, err
	}
	wire := &wireCount{}
	dial := wire.dialer((&net.Dialer{}).DialContext)
	opts.DialOptions = append(opts.DialOptions, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		return dial(ctx, "tcp", addr)
	}))
	timing := &reqTiming{}
	opts.DialOptions = append(opts.DialOptions, grpc.WithChainUnaryInterceptor(timing.unary))
	addr := cfg.Env.URL // KATBENCH_GRPC_URL
	if len(cfg.Args) == 1 {
		addr = cfg.Args[0]
	}
	if addr != "" {
		cl, err := grpcfront.Dial(ctx, addr, opts)
		if err != nil {
			return nil, fmt.Errorf("grpc: %w (is `katbench serve grpc --addr %s` running?)", err, addr)
		}
		params["addr"] = addr
		params["server"] = "external"
		params["store"] = StoreUnknown
		return &grpcCompetitor{
			Base:   Base{TargetName: "grpc", Cat: cl, LineParams: params, CloseFn: cl.Close},
			client: cl, wire: wire, timing: timing, addr: addr,
		}, nil
	}
	// A credential would reach the child only on its command line, where
	// every user of the host can read it: with one, the front stays
	// in-process.
	if len(cfg.ServeChild) > 0 && cfg.Storage.Warehouse == "" && opts.Credential.ID == "" {
		return startChildGRPC(ctx, cfg, opts, params, wire, timing)
	}
	c, err := startGRPC(ctx, cfg, opts, params)
	if err != nil {
		return nil, err
	}
	c.wire, c.timing = wire, timing
	return c, nil
}

// startChildGRPC runs the front as `katbench serve grpc`, a child process
// over a fresh embedded catalog (see Config.ServeChild).
func startChildGRPC(ctx context.Context, cfg Config, opts grpcfront.ClientOptions, params map[string]any, wire *wireCount, timing *reqTiming) (Competitor, error) {
	dur, err := catalog.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	ch, err := startChild(ctx, cfg, "grpc", childAuth{})
	if err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	cl, err := grpcfront.Dial(ctx, ch.addr, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("grpc: %w", err), ch.stop())
	}
	params["addr"] = ch.addr
	params["server"] = "child"
	params["server_pid"] = ch.pid()
	params["dir"] = cfg.Dir
	params["durability"] = string(dur)
	l := &childLoader{cfg: cfg, front: "grpc", dur: dur, ch: ch, ready: cl.Control,
		restarted: func(pid int) { params["server_pid"] = pid }}
	return &childGRPC{grpcCompetitor: &grpcCompetitor{
		Base: Base{TargetName: "grpc", Cat: cl, LineParams: params, CloseFn: func() error {
			return errors.Join(cl.Close(), l.stop())
		}},
		client: cl, ephemeral: true, mode: string(dur), wire: wire, timing: timing, addr: ch.addr,
	}, childLoader: l}, nil
}

// childGRPC is `grpc` served by a child process, whose setup can load
// the child's store in bulk (BulkCreator).
type childGRPC struct {
	*grpcCompetitor
	*childLoader
}

var _ BulkCreator = (*childGRPC)(nil)

// startGRPC runs the front in-process over a fresh embedded catalog.
func startGRPC(ctx context.Context, cfg Config, opts grpcfront.ClientOptions, params map[string]any) (*grpcCompetitor, error) {
	if cfg.Dir == "" {
		return nil, errors.New("grpc: no directory given")
	}
	dur, err := catalog.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	var sopts grpcfront.ServerOptions
	if opts.Credential.ID != "" {
		sopts.Credentials = []grpcfront.Credential{opts.Credential}
	}
	cat, err := openEmbedded(ctx, cfg, dur, params)
	if err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	if len(cfg.Storage.IOProps) > 0 { // the client's table IO reaches the same store
		io := maps.Clone(opts.Props)
		if io == nil {
			io = iceberg.Properties{}
		}
		maps.Copy(io, cfg.Storage.IOProps)
		opts.Props = io
	}
	srv, err := grpcfront.NewServer(cat, sopts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("grpc: %w", err), cat.Close())
	}
	run, err := serve.Listen("127.0.0.1:0", srv)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("grpc: %w", err), cat.Close())
	}
	stopServer := func() error { return errors.Join(run.Stop(serve.Grace), cat.Close()) }
	addr := run.Addr().String()
	cl, err := grpcfront.Dial(ctx, addr, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("grpc: %w", err), stopServer())
	}
	params["addr"] = addr
	params["server"] = "in-process"
	params["dir"] = cfg.Dir
	params["durability"] = string(dur)
	return &grpcCompetitor{
		Base: Base{TargetName: "grpc", Cat: cl, LineParams: params, CloseFn: func() error {
			return errors.Join(cl.Close(), stopServer())
		}},
		client:    cl,
		ephemeral: true,
		mode:      string(dur),
		addr:      addr,
	}, nil
}

// grpcClientOptions maps client properties to grpcfront options and the
// params reported in results (secrets left out).
func grpcClientOptions(p map[string]string) (grpcfront.ClientOptions, map[string]any, error) {
	opts := grpcfront.ClientOptions{}
	params := map[string]any{"client": "katbench grpcfront", "timeout": grpcfront.DefaultCallTimeout.String()}
	io := iceberg.Properties{}
	for k, v := range p {
		switch k {
		case "credential":
			c, err := grpcfront.ParseCredential(v)
			if err != nil {
				return opts, nil, fmt.Errorf("grpc: prop credential: %w", err)
			}
			opts.Credential = c
			params["auth"] = "bearer"
		case "token":
			opts.Token = v
			params["auth"] = "bearer"
		default:
			io[k] = v
			params["prop."+k] = results.RedactValue(k, v)
		}
	}
	if len(io) > 0 {
		opts.Props = io
	}
	return opts, params, nil
}
