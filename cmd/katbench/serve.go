package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/nordisk/katbench/catalog"
)

// openServedCatalog opens the embedded catalog a `katbench serve` front
// serves: in dir, or in a fresh temp dir (named after front) that the
// returned close function removes after closing the catalog. Its warehouse
// is st's (default: file:// under dir). allowed are extra roots for table
// and view locations besides the warehouse (--allowed-location).
func openServedCatalog(ctx context.Context, dir string, dur catalog.Durability, st storage, allowed []string, front string) (*catalog.Catalog, string, func() error, error) {
	removeDir := func() error { return nil }
	if dir == "" {
		d, err := os.MkdirTemp("", "katbench-"+front+"-*")
		if err != nil {
			return nil, "", nil, fmt.Errorf("create temp dir: %w", err)
		}
		dir = d
		removeDir = func() error { return os.RemoveAll(d) }
	}
	cat, err := catalog.Open(ctx, catalog.Options{Dir: dir, Durability: dur, Warehouse: st.warehouse, IOProps: st.ioProps, AllowedLocations: allowed})
	if err != nil {
		return nil, "", nil, errors.Join(fmt.Errorf("open catalog in %s: %w", dir, err), removeDir())
	}
	return cat, dir, func() error { return errors.Join(cat.Close(), removeDir()) }, nil
}

// checkAllowedLocations validates --allowed-location values before anything
// is created.
func checkAllowedLocations(locs []string) error {
	for _, l := range locs {
		if err := catalog.ValidateLocation(l); err != nil {
			return usagef("--allowed-location: %v", err)
		}
	}
	return nil
}

// exposedHelp is the paragraph of each serve front's --help on binding to
// other interfaces than loopback.
const exposedHelp = `The default --addr listens on loopback (127.0.0.1) only: only this host
can connect. Binding to all interfaces (0.0.0.0 or [::]) or to any
non-loopback address serves every host that can reach this one; without
--credential anyone there can read, change and drop the catalog, so the
server then prints a warning on stderr. There is no TLS: put a TLS proxy in
front of a server reachable over an untrusted network.`

// warnIfExposed warns on w when the server listens on a non-loopback
// address with auth off. bound is the listener's address (a host name was
// resolved by Listen, so "localhost" counts as loopback).
func warnIfExposed(w io.Writer, bound net.Addr, auth bool) {
	if auth {
		return
	}
	if ta, ok := bound.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return
	}
	fmt.Fprintf(w, "katbench: WARNING: listening on %s, which is not loopback, with auth off: any host that can reach it can read, change and drop the catalog (use --credential, or --addr 127.0.0.1:PORT)\n", bound)
}

// byteLimit checks a byte-limit flag: 0 or more (0 = the front's default).
func byteLimit(name string, v int64) error {
	if v < 0 {
		return usagef("--%s %d: want a byte count ≥ 0 (0 = default)", name, v)
	}
	return nil
}
