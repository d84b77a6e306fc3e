package main

import (
	"errors"
	"strconv"

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

` + serve.ExposedHelp,
		Example: `  katbench serve rest --addr 127.0.0.1:8181
  katbench serve rest --dir /tmp/cat --durability eventual --credential bench:s3cr3t`,
		Args: noArgs("rest"),
		RunE: func(cmd *cobra.Command, _ []string) error { return serveRest(cmd, f) },
	}
	fl := cmd.Flags()
	f.register(fl, "127.0.0.1:8181")
	fl.StringVar(&f.credential, "credential", "", "require OAuth2 client credentials id:secret (both non-empty)")
	fl.StringVar(&f.scope, "scope", "", "scope a token request must include (with --credential)")
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
	opts := restserver.Options{Credential: f.credential, RequiredScope: f.scope, Prefix: f.prefix,
		MaxBodyBytes: f.maxBodyBytes, MaxInflightBodyBytes: f.maxInflightBodyBytes}
	if err := opts.Validate(); err != nil {
		return usagef("%v", err)
	}
	if f.vend && !workspace.IsS3(f.storage.Warehouse) {
		return usagef("--vend-storage-credentials needs an s3:// --warehouse (a file:// warehouse has nothing to vend)")
	}
	return serveFront(cmd, &f.frontFlags, dur, frontRun{
		name: "rest", banner: "serving Iceberg REST at http://%s", auth: f.credential != "",
		prepare: func(st workspace.Storage) {
			opts.Warehouse = st.Warehouse // a client naming a warehouse must name this one
			if f.vend {
				opts.StorageConfig = st.VendedConfig()
			}
		},
		server: func(cat *catalog.Catalog) (serve.Server, error) { return restserver.New(cat, opts) },
	})
}
