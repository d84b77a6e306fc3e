package serve

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// GRPCSettings are the flags of `katbench serve grpc` beyond
// FrontSettings. A value: safe to copy.
type GRPCSettings struct {
	Credentials     []string
	MaxMessageBytes int64
	MaxConnections  int
}

// RegisterFlags adds the gRPC front's flags to fl.
func (f *GRPCSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.Credentials, "credential", nil, "require a bearer token from GetToken with this id:secret (both non-empty; repeatable)")
	fl.Int64Var(&f.MaxMessageBytes, "max-message-bytes", grpcfront.DefaultMaxRecvBytes, "largest request message accepted, in bytes (raise it for commits of very wide schemas)")
	fl.IntVar(&f.MaxConnections, "max-connections", grpcfront.DefaultMaxConnections, "most connections open at once; more are closed on accept")
}

// Options checks the settings before anything is created and returns
// the server's options.
func (f GRPCSettings) Options() (grpcfront.ServerOptions, error) {
	if err := CheckByteLimit("max-message-bytes", f.MaxMessageBytes); err != nil {
		return grpcfront.ServerOptions{}, err
	}
	if f.MaxMessageBytes > math.MaxInt32 {
		return grpcfront.ServerOptions{}, Settingsf("--max-message-bytes %d: at most %d (gRPC's limit)", f.MaxMessageBytes, math.MaxInt32)
	}
	if f.MaxConnections < 0 {
		return grpcfront.ServerOptions{}, Settingsf("--max-connections %d: want ≥ 0 (0 = default)", f.MaxConnections)
	}
	opts := grpcfront.ServerOptions{MaxRecvBytes: int(f.MaxMessageBytes), MaxConnections: f.MaxConnections}
	for _, s := range f.Credentials {
		c, err := grpcfront.ParseCredential(s)
		if err != nil {
			return opts, Settingsf("--credential: %v", err)
		}
		opts.Credentials = append(opts.Credentials, c)
	}
	return opts, nil
}
