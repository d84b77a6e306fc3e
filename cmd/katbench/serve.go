package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/workspace"
)

// frontFlags are the flags both `katbench serve` fronts take.
type frontFlags struct {
	addr, dir, durability string
	storage               workspace.StorageSettings
	allowedLocations      []string
}

func (f *frontFlags) register(fl *pflag.FlagSet, addr string) {
	fl.StringVar(&f.addr, "addr", addr, "listen address host:port (port 0 picks a free one)")
	fl.StringVar(&f.dir, "dir", "", "catalog directory (default: a temp dir removed on exit)")
	fl.StringVar(&f.durability, "durability", os.Getenv("BENCH_DURABILITY"), "immediate|eventual|none; env BENCH_DURABILITY")
	fl.StringArrayVar(&f.allowedLocations, "allowed-location", nil, "absolute URI under which table and view locations may lie besides the warehouse (repeatable)")
	f.storage.RegisterFlags(fl)
}

// check validates the shared flags before anything is created.
func (f *frontFlags) check() (catalog.Durability, error) {
	dur, err := catalog.ParseDurability(f.durability)
	if err != nil {
		return "", usagef("--durability: %v", err)
	}
	for _, l := range f.allowedLocations {
		if err := catalog.ValidateLocation(l); err != nil {
			return "", usagef("--allowed-location: %v", err)
		}
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return "", usagef("--addr %q: %v", f.addr, err)
	}
	return dur, nil
}

// frontRun is what a front adds to the shared lifecycle: its server over
// the opened catalog, and the words of its banner.
type frontRun struct {
	name, banner string // "rest"; "serving Iceberg REST at http://%s"
	auth         bool
	prepare      func(st workspace.Storage)                       // options that need the resolved storage
	server       func(cat *catalog.Catalog) (serve.Server, error) // the front over cat
}

// serveFront runs one front under internal/serve's lifecycle until Ctrl-C
// or SIGTERM. Every flag has been checked.
func serveFront(cmd *cobra.Command, f *frontFlags, dur catalog.Durability, fr frontRun) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
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
	}
	return serve.Run(ctx, serve.Front{Name: fr.name, Addr: f.addr, Auth: fr.auth, New: fr.server, Log: stderr,
		Catalog: catalog.Options{Dir: f.dir, Durability: dur, Warehouse: st.Warehouse, IOProps: st.IOProps, AllowedLocations: f.allowedLocations},
		Banner: func(addr net.Addr, dir string) string {
			return fmt.Sprintf("katbench: "+fr.banner+" (catalog %s, warehouse %s, durability %s, auth %s)", addr, dir, st.Describe(dir), dur, auth)
		}})
}

// byteLimit checks a byte-limit flag: 0 or more (0 = the front's default).
func byteLimit(name string, v int64) error {
	if v < 0 {
		return usagef("--%s %d: want a byte count ≥ 0 (0 = default)", name, v)
	}
	return nil
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
