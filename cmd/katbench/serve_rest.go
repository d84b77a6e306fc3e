package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/workspace"
)

// serveRestFlags are the flags of `katbench serve rest`.
type serveRestFlags struct {
	frontFlags
	credential, scope, prefix          string
	vend                               bool
	maxBodyBytes, maxInflightBodyBytes int64
	tokenTTL                           time.Duration
	sigv4                              sigv4Flags
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
refused before its body is read; tokens live --token-ttl (a short one
makes clients refresh during a run).

With --sigv4 ACCESS_KEY:SECRET (or --sigv4-file FILE holding that line, or
` + envSigV4 + ` in the environment, so the secret stays off the command
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
		Args: noArgs("rest"),
		RunE: func(cmd *cobra.Command, _ []string) error { return serveRest(cmd, f) },
	}
	fl := cmd.Flags()
	f.register(fl, "127.0.0.1:8181")
	fl.StringVar(&f.credential, "credential", "", "require OAuth2 client credentials id:secret (both non-empty)")
	fl.StringVar(&f.scope, "scope", "", "scope a token request must include (with --credential)")
	fl.DurationVar(&f.tokenTTL, "token-ttl", restserver.DefaultTokenTTL, "lifetime of the tokens minted for --credential")
	f.sigv4.register(fl)
	fl.StringVar(&f.prefix, "prefix", "", "route prefix advertised in /v1/config")
	fl.BoolVar(&f.vend, "vend-storage-credentials", false, "hand clients the s3:// warehouse's endpoint, keys and region in /v1/config and every LoadTableResult (off: clients bring their own)")
	fl.Int64Var(&f.maxBodyBytes, "max-body-bytes", restserver.DefaultMaxBodyBytes, "largest create/commit/register/transaction body accepted, in bytes")
	fl.Int64Var(&f.maxInflightBodyBytes, "max-inflight-body-bytes", restserver.DefaultMaxInflightBodyBytes, "request body bytes held at once across all requests")
	serveCmd.AddCommand(cmd)
}

// serveRest validates every flag before creating anything, then serves.
func serveRest(cmd *cobra.Command, f serveRestFlags) error {
	dur, err := f.Check()
	if err != nil {
		return err
	}
	if err := errors.Join(serve.CheckByteLimit("max-body-bytes", f.maxBodyBytes), serve.CheckByteLimit("max-inflight-body-bytes", f.maxInflightBodyBytes)); err != nil {
		return err
	}
	if f.tokenTTL <= 0 {
		return usagef("--token-ttl %s: want a positive duration such as 5s or 1h", f.tokenTTL)
	}
	verifier, err := f.sigv4.verifier(os.Getenv)
	if err != nil {
		return err
	}
	if verifier != nil && f.credential != "" {
		return usagef("--sigv4 and --credential are exclusive: a request carries one Authorization header")
	}
	opts := restserver.Options{Credential: f.credential, RequiredScope: f.scope, Prefix: f.prefix, TokenTTL: f.tokenTTL,
		MaxBodyBytes: f.maxBodyBytes, MaxInflightBodyBytes: f.maxInflightBodyBytes, SigV4: verifier}
	if err := opts.Validate(); err != nil {
		return usagef("%v", err)
	}
	authKind := ""
	if verifier != nil {
		authKind = fmt.Sprintf("AWS SigV4 (%s, %s)", verifier.Region(), verifier.Service())
	}
	if f.vend && !workspace.IsS3(f.storage.Warehouse) {
		return usagef("--vend-storage-credentials needs an s3:// --warehouse (a file:// warehouse has nothing to vend)")
	}
	return serveFront(cmd, &f.frontFlags, dur, frontRun{
		name: "rest", banner: "serving Iceberg REST at http://%s", auth: f.credential != "" || verifier != nil, authKind: authKind,
		prepare: func(st workspace.Storage) {
			opts.Warehouse = st.Warehouse // a client naming a warehouse must name this one
			if f.vend {
				opts.StorageConfig = st.VendedConfig()
			}
		},
		server: func(cat *catalog.Catalog) (serve.Server, error) { return restserver.New(cat, opts) },
	})
}
