package main

import (
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/serve"
)

func init() {
	var f serve.RESTCommand
	cmd := &cobra.Command{
		Use:   "rest",
		Short: "Serve the embedded catalog over the Iceberg REST protocol",
		Long: `Serve the embedded bbolt catalog over the Apache Iceberg REST catalog
protocol until Ctrl-C or SIGTERM, then shut down gracefully and close the
catalog file. Without --dir the catalog lives in a temp dir removed on exit.
With --credential id:secret every route needs a bearer token from
POST /v1/oauth/tokens (client_credentials); a request without one is
refused before its body is read; tokens live --token-ttl (a short one
makes clients refresh during a run).

With --sigv4 ACCESS_KEY:SECRET (or --sigv4-file FILE holding that line, or
` + serve.EnvSigV4 + ` in the environment, so the secret stays off the command
line) every route needs an AWS SigV4-signed request instead: signed with
that key for --sigv4-region and --sigv4-service, dated within 15 minutes of
this server's clock, its body unchanged. Anything else gets 403 with what
was wrong (never the key). Clients sign with --prop rest.sigv4-enabled=true.

Limits: a token request body is at most ` + strconv.Itoa(restserver.TokenBodyBytes>>10) + ` KiB, a namespace or rename body
` + strconv.Itoa(restserver.SmallBodyBytes>>20) + ` MiB, a create, commit, register, transaction or metrics body
--max-body-bytes; a larger one gets 413 unread. Bodies in flight together
are held to --max-inflight-body-bytes: a request finding no room waits up
to ` + restserver.DefaultBodyBudgetWait.String() + `, then gets 503 with Retry-After.

` + serve.ExposedHelp,
		Example: `  katbench serve rest --addr 127.0.0.1:8181
  katbench serve rest --dir /tmp/cat --durability eventual --credential bench:s3cr3t
  katbench serve rest --credential bench:s3cr3t --token-ttl 5s
  KATBENCH_SIGV4=AKIDEXAMPLE:SECRET katbench serve rest --sigv4-region eu-north-1 --sigv4-service glue`,
		Args: func(_ *cobra.Command, args []string) error { return serve.CheckNoArgs("rest", args) },
		RunE: func(cmd *cobra.Command, _ []string) error { return f.Run(cmd.Context(), process(cmd)) },
	}
	f.RegisterFlags(cmd.Flags(), os.Getenv)
	serveCmd.AddCommand(cmd)
}
