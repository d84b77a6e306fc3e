package main

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
)

// grpcGracePeriod is how long a stop waits for in-flight calls before
// cutting them off.
const grpcGracePeriod = 10 * time.Second

// serveGRPCFlags are the flags of `katbench serve grpc`.
type serveGRPCFlags struct {
	addr, dir, durability string
	credentials           []string
	storage               storageFlags
	allowedLocations      []string
	maxMessageBytes       int64
	maxConnections        int
}

func init() {
	var f serveGRPCFlags
	cmd := &cobra.Command{
		Use:   "grpc",
		Short: "Serve the embedded catalog over gRPC (katbench.catalog.v1.CatalogService)",
		Long: `Serve the embedded bbolt catalog over katbench's gRPC front until Ctrl-C or
SIGTERM, then stop gracefully and close the catalog file. Without --dir the
catalog lives in a temp dir removed on exit. With --credential id:secret
(repeatable) every RPC but GetToken needs "authorization: Bearer <token>",
the token coming from GetToken; a call without a valid token is refused on
its headers, before its message is read. Benchmark it with
` + "`katbench grpc HOST:PORT`" + `.

Limits: one request message is at most --max-message-bytes (a larger one
fails with ResourceExhausted unread), a connection carries at most ` + strconv.Itoa(grpcfront.DefaultMaxConcurrentStreams) + `
concurrent calls (more wait client-side), at most --max-connections
connections are open (more are closed on accept), and at most ` + strconv.Itoa(grpcfront.MaxTokenCalls) + ` GetToken
calls are in flight.

` + exposedHelp,
		Example: `  katbench serve grpc --addr 127.0.0.1:50051
  katbench serve grpc --dir /tmp/cat --durability eventual --credential bench:s3cr3t`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("serve grpc takes no arguments, got %q (flags: --addr, --dir, --durability, --credential)", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return serveGRPC(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:50051", "listen address host:port (port 0 picks a free one)")
	fl.StringVar(&f.dir, "dir", "", "catalog directory (default: a temp dir removed on exit)")
	fl.StringVar(&f.durability, "durability", os.Getenv("BENCH_DURABILITY"), "immediate|eventual|none; env BENCH_DURABILITY")
	fl.StringArrayVar(&f.allowedLocations, "allowed-location", nil, "absolute URI under which table and view locations may lie besides the warehouse (repeatable)")
	fl.StringArrayVar(&f.credentials, "credential", nil, "require a bearer token from GetToken with this id:secret (repeatable)")
	fl.Int64Var(&f.maxMessageBytes, "max-message-bytes", grpcfront.DefaultMaxRecvBytes, "largest request message accepted, in bytes (raise it for commits of very wide schemas)")
	fl.IntVar(&f.maxConnections, "max-connections", grpcfront.DefaultMaxConnections, "most connections open at once; more are closed on accept")
	f.storage.register(fl)
	serveCmd.AddCommand(cmd)
}

// serveGRPC validates every flag before creating anything, then serves.
func serveGRPC(cmd *cobra.Command, f serveGRPCFlags) (err error) {
	dur, err := catalog.ParseDurability(f.durability)
	if err != nil {
		return usagef("--durability: %v", err)
	}
	if err := byteLimit("max-message-bytes", f.maxMessageBytes); err != nil {
		return err
	}
	if f.maxMessageBytes > math.MaxInt32 {
		return usagef("--max-message-bytes %d: at most %d (gRPC's limit)", f.maxMessageBytes, math.MaxInt32)
	}
	if f.maxConnections < 0 {
		return usagef("--max-connections %d: want ≥ 0 (0 = default)", f.maxConnections)
	}
	opts := grpcfront.ServerOptions{MaxRecvBytes: int(f.maxMessageBytes), MaxConnections: f.maxConnections}
	for _, s := range f.credentials {
		c, err := grpcfront.ParseCredential(s)
		if err != nil {
			return usagef("--credential: %v", err)
		}
		opts.Credentials = append(opts.Credentials, c)
	}
	if err := checkAllowedLocations(f.allowedLocations); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usagef("--addr %q: %v", f.addr, err)
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, err := f.storage.resolve(ctx, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	cat, dir, closeCat, err := openServedCatalog(ctx, f.dir, dur, st, f.allowedLocations, "grpc")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeCat()) }()

	srv, err := grpcfront.NewServer(cat, opts)
	if err != nil {
		return usagef("%v", err)
	}
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.addr, err)
	}
	stderr := cmd.ErrOrStderr()
	auth := "off"
	if len(opts.Credentials) > 0 {
		auth = "bearer token"
	}
	fmt.Fprintf(stderr, "katbench: serving gRPC at %s (catalog %s, warehouse %s, durability %s, auth %s)\n", l.Addr(), dir, st.describe(dir), dur, auth)
	warnIfExposed(stderr, l.Addr(), len(opts.Credentials) > 0)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "katbench: shutting down")
	stopped := make(chan struct{})
	go func() { srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(grpcGracePeriod):
		fmt.Fprintf(stderr, "katbench: calls still running after %v; stopping hard\n", grpcGracePeriod)
		srv.Stop()
	}
	return <-served
}
