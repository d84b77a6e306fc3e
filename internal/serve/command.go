package serve

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/workspace"
)

// The fronts' default listen addresses: loopback only (ExposedHelp).
const (
	DefaultRESTAddr = "127.0.0.1:8181"
	DefaultGRPCAddr = "127.0.0.1:50051"
)

// Command is what `katbench serve rest` and `katbench serve grpc` share:
// the front's settings and its warehouse. Not safe for concurrent use.
type Command struct {
	FrontSettings
	Storage workspace.StorageSettings
}

// RegisterFlags adds the flags every front takes to fl (--addr default
// addr; getenv gives the defaults the environment sets).
func (c *Command) RegisterFlags(fl *pflag.FlagSet, addr string, getenv func(string) string) {
	c.FrontSettings.RegisterFlags(fl, addr, getenv)
	c.Storage.RegisterFlags(fl)
}

// serve runs the front fr, every flag checked, until ctx ends or Ctrl-C
// or SIGTERM, in the process p.
func (c *Command) serve(ctx context.Context, p lifecycle.Process, dur catalog.Durability, fr Spec) error {
	ctx, stop := lifecycle.Interruptible(ctx)
	defer stop()
	return Serve(ctx, c.FrontSettings, c.Storage, p.Getenv, p.Transport, dur, fr, p.Stderr)
}

// CheckNoArgs refuses arguments to the serve front named front.
func CheckNoArgs(front string, args []string) error {
	if len(args) > 0 {
		return Settingsf("serve %s takes no arguments, got %q (flags: --addr, --dir, --durability, --credential)", front, args)
	}
	return nil
}

// RESTCommand is `katbench serve rest`: the embedded catalog over the
// Iceberg REST protocol. Not safe for concurrent use.
type RESTCommand struct {
	Command
	REST RESTSettings
}

// RegisterFlags adds serve rest's flags to fl.
func (c *RESTCommand) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	c.Command.RegisterFlags(fl, DefaultRESTAddr, getenv)
	c.REST.RegisterFlags(fl)
}

// Run checks every flag before creating anything, then serves until ctx
// ends or Ctrl-C or SIGTERM.
func (c *RESTCommand) Run(ctx context.Context, p lifecycle.Process) error {
	dur, err := c.Check()
	if err != nil {
		return err
	}
	opts, authKind, err := c.REST.Options(p.Getenv, workspace.IsS3(c.Storage.Warehouse))
	if err != nil {
		return err
	}
	return c.serve(ctx, p, dur, Spec{
		Name: "rest", Banner: "serving Iceberg REST at http://%s", Auth: c.REST.Credential != "" || opts.SigV4 != nil, AuthKind: authKind,
		Prepare: func(st workspace.Storage) {
			opts.Warehouse = st.Warehouse // a client naming a warehouse must name this one
			if c.REST.Vend {
				opts.StorageConfig = st.VendedConfig()
			}
		},
		Server: func(cat *catalog.Catalog) (Server, error) { return restserver.New(cat, opts) },
	})
}

// GRPCCommand is `katbench serve grpc`: the embedded catalog over
// katbench's gRPC front. Not safe for concurrent use.
type GRPCCommand struct {
	Command
	GRPC GRPCSettings
}

// RegisterFlags adds serve grpc's flags to fl.
func (c *GRPCCommand) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	c.Command.RegisterFlags(fl, DefaultGRPCAddr, getenv)
	c.GRPC.RegisterFlags(fl)
}

// Run checks every flag before creating anything, then serves until ctx
// ends or Ctrl-C or SIGTERM.
func (c *GRPCCommand) Run(ctx context.Context, p lifecycle.Process) error {
	dur, err := c.Check()
	if err != nil {
		return err
	}
	opts, err := c.GRPC.Options()
	if err != nil {
		return err
	}
	return c.serve(ctx, p, dur, Spec{
		Name: "grpc", Banner: "serving gRPC at %s", Auth: len(opts.Credentials) > 0,
		Server: func(cat *catalog.Catalog) (Server, error) {
			srv, err := grpcfront.NewServer(cat, opts)
			if err != nil {
				return nil, Settingsf("%v", err)
			}
			return srv, nil
		},
	})
}
