package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/scenarios/s3bench"
)

var transportOpts s3bench.Command

var transportCmd = &cobra.Command{
	Use:   "transport [ENDPOINT]",
	Short: "Micro-bench the S3 byte transports (net/http vs io_uring): HEAD, GET, PUT",
	Long: `transport measures S3 operations (katbench list: s3.*) through minio-go over
each byte transport (net/http and io_uring), interleaved round by round in one
run, against a plaintext S3 ENDPOINT (e.g. versitygw: eval
"$(containers/versitygw_up.sh)") and against an in-process control S3 server
(--control, on by default). With no ENDPOINT it runs against the control alone.

One JSON line per (transport, op, size, concurrency) goes to stdout: target is
the transport that really ran, scenario s3.<op>[.<size>].c<concurrency>,
params.endpoint the store ("control" for the in-process one). A table per
endpoint with ratios over --baseline goes to stderr. --floor adds target floor:
the same client with every request answered from memory, the lowest CPU per
operation any transport could reach in that cell (docs/transport.md, "The
floor").

Keys come from --access-key/--secret-key or AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, the region from --region or AWS_REGION.

io_uring requests wait for completions, by default, in the hold wait (a
blocking wait that keeps its Go P) when the store runs in another process, and
in the poll wait when it runs in this one, as the control store does; each
uring line says which in params.uring_wait. KATBENCH_URING_WAIT forces one:
auto (the default), poll, block, adaptive, hold, sqpoll or shared (see
docs/transport.md: "The hold wait", "Kernel-side submission", "Hundreds of
connections: shared rings").`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		return transportOpts.Run(cmd.Context(), process(cmd), args, cmd.Flags().Changed)
	},
}

func init() {
	transportOpts.RegisterFlags(transportCmd.Flags(), os.Getenv)
	rootCmd.AddCommand(transportCmd)
}
