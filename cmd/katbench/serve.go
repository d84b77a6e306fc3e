package main

import (
	"fmt"
	"net"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/workspace"
)

// frontFlags are the flags both `katbench serve` fronts take.
type frontFlags struct {
	serve.FrontSettings
	storage workspace.StorageSettings
}

func (f *frontFlags) register(fl *pflag.FlagSet, addr string) {
	f.RegisterFlags(fl, addr, os.Getenv)
	f.storage.RegisterFlags(fl)
}

// frontRun is what a front adds to the shared lifecycle: its server over
// the opened catalog, and the words of its banner.
type frontRun struct {
	name, banner string // "rest"; "serving Iceberg REST at http://%s"
	auth         bool
	authKind     string                                           // what auth is when on ("bearer token" when empty)
	prepare      func(st workspace.Storage)                       // options that need the resolved storage
	server       func(cat *catalog.Catalog) (serve.Server, error) // the front over cat
}

// serveFront runs one front under internal/serve's lifecycle until Ctrl-C
// or SIGTERM. Every flag has been checked.
func serveFront(cmd *cobra.Command, f *frontFlags, dur catalog.Durability, fr frontRun) error {
	ctx, stop := lifecycle.Interruptible(cmd.Context())
	defer stop()
	stderr := cmd.ErrOrStderr()
	st, err := f.storage.Resolve(ctx, os.Getenv, transportSettings, stderr)
	if err != nil {
		return err
	}
	if fr.prepare != nil {
		fr.prepare(st)
	}
	auth := "off"
	if fr.auth {
		auth = "bearer token"
		if fr.authKind != "" {
			auth = fr.authKind
		}
	}
	return serve.Run(ctx, serve.Front{Name: fr.name, Addr: f.Addr, Auth: fr.auth, New: fr.server, Log: stderr,
		Catalog: catalog.Options{Dir: f.Dir, Durability: dur, Warehouse: st.Warehouse, IOProps: st.IOProps, AllowedLocations: f.AllowedLocations},
		Banner: func(addr net.Addr, dir string) string {
			return fmt.Sprintf("katbench: "+fr.banner+" (catalog %s, warehouse %s, durability %s, auth %s)", addr, dir, st.Describe(dir), dur, auth)
		}})
}

// noArgs refuses arguments to a serve front.
func noArgs(front string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("serve %s takes no arguments, got %q (flags: --addr, --dir, --durability, --credential)", front, args)
		}
		return nil
	}
}
