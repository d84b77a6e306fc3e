package main

import (
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/internal/serve"
)

func init() {
	var f serve.GRPCCommand
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
		Args: func(_ *cobra.Command, args []string) error { return serve.CheckNoArgs("grpc", args) },
		RunE: func(cmd *cobra.Command, _ []string) error { return f.Run(cmd.Context(), process(cmd)) },
	}
	f.RegisterFlags(cmd.Flags(), os.Getenv)
	serveCmd.AddCommand(cmd)
}
