package main

import (
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

// serveFront runs one front until Ctrl-C or SIGTERM. Every flag has been
// checked.
func serveFront(cmd *cobra.Command, f *frontFlags, dur catalog.Durability, fr serve.Spec) error {
	ctx, stop := lifecycle.Interruptible(cmd.Context())
	defer stop()
	return serve.Serve(ctx, f.FrontSettings, f.storage, os.Getenv, transportSettings, dur, fr, cmd.ErrOrStderr())
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
