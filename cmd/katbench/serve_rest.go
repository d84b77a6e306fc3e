package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
)

// serveRestFlags are the flags of `katbench serve rest`.
type serveRestFlags struct {
	addr, dir, durability, credential, scope, prefix string
	storage                                          storageFlags
	vend                                             bool
	allowedLocations                                 []string
	maxBodyBytes, maxInflightBodyBytes               int64
}

func init() {
	var f serveRestFlags
	cmd := &cobra.Command{
		Use:   "rest",
		Short: "Serve the embedded catalog over the Iceberg REST protocol",
		Long: `Serve the embedded bbolt catalog over the Apache Iceberg REST catalog
protocol until Ctrl-C or SIGTERM, then shut down gracefully and close the
catalog file. Without --dir the catalog lives in a temp dir removed on exit.
With --credential id:secret every route needs a bearer token from
POST /v1/oauth/tokens (client_credentials); a request without one is
refused before its body is read.

Limits: a token request body is at most ` + strconv.Itoa(restserver.TokenBodyBytes>>10) + ` KiB, a namespace or rename body
` + strconv.Itoa(restserver.SmallBodyBytes>>20) + ` MiB, a create, commit, register, transaction or metrics body
--max-body-bytes; a larger one gets 413 unread. Bodies in flight together
are held to --max-inflight-body-bytes: a request finding no room waits up
to ` + restserver.DefaultBodyBudgetWait.String() + `, then gets 503 with Retry-After.

` + exposedHelp,
		Example: `  katbench serve rest --addr 127.0.0.1:8181
  katbench serve rest --dir /tmp/cat --durability eventual --credential bench:s3cr3t`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("serve rest takes no arguments, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return serveRest(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8181", "listen address host:port (port 0 picks a free one)")
	fl.StringVar(&f.dir, "dir", "", "catalog directory (default: a temp dir removed on exit)")
	fl.StringVar(&f.durability, "durability", os.Getenv("BENCH_DURABILITY"), "immediate|eventual|none; env BENCH_DURABILITY")
	fl.StringVar(&f.credential, "credential", "", "require OAuth2 client credentials id:secret")
	fl.StringVar(&f.scope, "scope", "", "scope a token request must include (with --credential)")
	fl.StringVar(&f.prefix, "prefix", "", "route prefix advertised in /v1/config")
	f.storage.register(fl)
	fl.BoolVar(&f.vend, "vend-storage-credentials", false, "hand clients the s3:// warehouse's endpoint, keys and region in /v1/config and every LoadTableResult (off: clients bring their own)")
	fl.StringArrayVar(&f.allowedLocations, "allowed-location", nil, "absolute URI under which table and view locations may lie besides the warehouse (repeatable)")
	fl.Int64Var(&f.maxBodyBytes, "max-body-bytes", restserver.DefaultMaxBodyBytes, "largest create/commit/register/transaction body accepted, in bytes")
	fl.Int64Var(&f.maxInflightBodyBytes, "max-inflight-body-bytes", restserver.DefaultMaxInflightBodyBytes, "request body bytes held at once across all requests")
	serveCmd.AddCommand(cmd)
}

// serveRest validates every flag before creating anything, then serves.
func serveRest(cmd *cobra.Command, f serveRestFlags) (err error) {
	dur, err := catalog.ParseDurability(f.durability)
	if err != nil {
		return usagef("--durability: %v", err)
	}
	if err := errors.Join(byteLimit("max-body-bytes", f.maxBodyBytes), byteLimit("max-inflight-body-bytes", f.maxInflightBodyBytes)); err != nil {
		return err
	}
	sopts := restserver.Options{
		Credential:           f.credential,
		RequiredScope:        f.scope,
		Prefix:               f.prefix,
		MaxBodyBytes:         f.maxBodyBytes,
		MaxInflightBodyBytes: f.maxInflightBodyBytes,
	}
	if err := sopts.Validate(); err != nil {
		return usagef("%v", err)
	}
	if err := checkAllowedLocations(f.allowedLocations); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usagef("--addr %q: %v", f.addr, err)
	}

	if f.vend && !isS3Warehouse(f.storage.warehouse) {
		return usagef("--vend-storage-credentials needs an s3:// --warehouse (a file:// warehouse has nothing to vend)")
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, err := f.storage.resolve(ctx, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	// A client naming a warehouse must name this one (the URI).
	sopts.Warehouse = st.warehouse
	if f.vend {
		sopts.StorageConfig = st.vendedConfig()
	}
	cat, dir, closeCat, err := openServedCatalog(ctx, f.dir, dur, st, f.allowedLocations, "rest")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeCat()) }()

	srv, err := restserver.New(cat, sopts)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", f.addr, err)
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "katbench: serving Iceberg REST at http://%s (catalog %s, warehouse %s, durability %s)\n", l.Addr(), dir, st.describe(dir), dur)
	warnIfExposed(stderr, l.Addr(), f.credential != "")

	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "katbench: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(srv.Shutdown(sctx), <-served)
}
