package main

import (
	"context"
	"errors"
	"fmt"
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
