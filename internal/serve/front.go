package serve

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
)

// Spec is what one front adds to the shared lifecycle of `katbench serve`:
// its server over the opened catalog, and the words of its banner.
type Spec struct {
	Name, Banner string // "rest"; "serving Iceberg REST at http://%s"
	Auth         bool
	AuthKind     string                                     // what auth is when on ("bearer token" when empty)
	Prepare      func(st workspace.Storage)                 // options that need the resolved storage
	Server       func(cat *catalog.Catalog) (Server, error) // the front over cat
}

// Serve resolves the warehouse (storage, with the transports' settings
// ts) and runs the front fr with settings f and durability dur under Run
// until ctx ends. Every flag has been checked; log gets the banner and
// the warnings.
func Serve(ctx context.Context, f FrontSettings, storage workspace.StorageSettings, getenv func(string) string, ts transport.Settings,
	dur catalog.Durability, fr Spec, log io.Writer) error {
	st, err := storage.Resolve(ctx, getenv, ts, log)
	if err != nil {
		return err
	}
	if fr.Prepare != nil {
		fr.Prepare(st)
	}
	auth := "off"
	if fr.Auth {
		auth = "bearer token"
		if fr.AuthKind != "" {
			auth = fr.AuthKind
		}
	}
	return Run(ctx, Front{Name: fr.Name, Addr: f.Addr, Auth: fr.Auth, New: fr.Server, Log: log,
		Catalog: catalog.Options{Dir: f.Dir, Durability: dur, Warehouse: st.Warehouse, IOProps: st.IOProps, AllowedLocations: f.AllowedLocations},
		Banner: func(addr net.Addr, dir string) string {
			return fmt.Sprintf("katbench: "+fr.Banner+" (catalog %s, warehouse %s, durability %s, auth %s)", addr, dir, st.Describe(dir), dur, auth)
		}})
}
