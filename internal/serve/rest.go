package serve

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog/restserver"
)

// RESTSettings are the flags of `katbench serve rest` beyond
// FrontSettings. A value: safe to copy.
type RESTSettings struct {
	Credential, Scope, Prefix          string
	Vend                               bool // hand clients the warehouse's storage settings
	MaxBodyBytes, MaxInflightBodyBytes int64
	TokenTTL                           time.Duration
	SigV4                              SigV4Settings
}

// RegisterFlags adds the REST front's flags to fl.
func (f *RESTSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.Credential, "credential", "", "require OAuth2 client credentials id:secret (both non-empty)")
	fl.StringVar(&f.Scope, "scope", "", "scope a token request must include (with --credential)")
	fl.DurationVar(&f.TokenTTL, "token-ttl", restserver.DefaultTokenTTL, "lifetime of the tokens minted for --credential")
	f.SigV4.RegisterFlags(fl)
	fl.StringVar(&f.Prefix, "prefix", "", "route prefix advertised in /v1/config")
	fl.BoolVar(&f.Vend, "vend-storage-credentials", false, "hand clients the s3:// warehouse's endpoint, keys and region in /v1/config and every LoadTableResult (off: clients bring their own)")
	fl.Int64Var(&f.MaxBodyBytes, "max-body-bytes", restserver.DefaultMaxBodyBytes, "largest create/commit/register/transaction body accepted, in bytes")
	fl.Int64Var(&f.MaxInflightBodyBytes, "max-inflight-body-bytes", restserver.DefaultMaxInflightBodyBytes, "request body bytes held at once across all requests")
}

// Options checks the settings before anything is created (s3Warehouse:
// whether the warehouse is on S3, which --vend-storage-credentials needs)
// and returns the server's options and what its auth is ("" for off or a
// bearer token).
func (f RESTSettings) Options(getenv func(string) string, s3Warehouse bool) (restserver.Options, string, error) {
	var opts restserver.Options
	if err := errors.Join(CheckByteLimit("max-body-bytes", f.MaxBodyBytes), CheckByteLimit("max-inflight-body-bytes", f.MaxInflightBodyBytes)); err != nil {
		return opts, "", err
	}
	if f.TokenTTL <= 0 {
		return opts, "", Settingsf("--token-ttl %s: want a positive duration such as 5s or 1h", f.TokenTTL)
	}
	verifier, err := f.SigV4.Verifier(getenv)
	if err != nil {
		return opts, "", err
	}
	if verifier != nil && f.Credential != "" {
		return opts, "", Settingsf("--sigv4 and --credential are exclusive: a request carries one Authorization header")
	}
	opts = restserver.Options{Credential: f.Credential, RequiredScope: f.Scope, Prefix: f.Prefix, TokenTTL: f.TokenTTL,
		MaxBodyBytes: f.MaxBodyBytes, MaxInflightBodyBytes: f.MaxInflightBodyBytes, SigV4: verifier}
	if err := opts.Validate(); err != nil {
		return opts, "", Settingsf("%v", err)
	}
	authKind := ""
	if verifier != nil {
		authKind = fmt.Sprintf("AWS SigV4 (%s, %s)", verifier.Region(), verifier.Service())
	}
	if f.Vend && !s3Warehouse {
		return opts, "", Settingsf("--vend-storage-credentials needs an s3:// --warehouse (a file:// warehouse has nothing to vend)")
	}
	return opts, authKind, nil
}
