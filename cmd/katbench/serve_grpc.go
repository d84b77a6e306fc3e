package main

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/internal/serve"
)

// serveGRPCFlags are the flags of `katbench serve grpc`.
type serveGRPCFlags struct {
	frontFlags
	grpc serve.GRPCSettings
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

` + serve.ExposedHelp,
		Example: `  katbench serve grpc --addr 127.0.0.1:50051
  katbench serve grpc --dir /tmp/cat --durability eventual --credential bench:s3cr3t`,
		Args: noArgs("grpc"),
		RunE: func(cmd *cobra.Command, _ []string) error { return serveGRPC(cmd, f) },
	}
	fl := cmd.Flags()
	f.register(fl, "127.0.0.1:50051")
	f.grpc.RegisterFlags(fl)
	serveCmd.AddCommand(cmd)
}

// serveGRPC validates every flag before creating anything, then serves.
func serveGRPC(cmd *cobra.Command, f serveGRPCFlags) error {
	dur, err := f.Check()
	if err != nil {
		return err
	}
	opts, err := f.grpc.Options()
	if err != nil {
		return err
	}
	return serveFront(cmd, &f.frontFlags, dur, serve.Spec{
		Name: "grpc", Banner: "serving gRPC at %s", Auth: len(opts.Credentials) > 0,
		Server: func(cat *catalog.Catalog) (serve.Server, error) {
			srv, err := grpcfront.NewServer(cat, opts)
			if err != nil {
				return nil, usagef("%v", err)
			}
			return srv, nil
		},
	})
}
