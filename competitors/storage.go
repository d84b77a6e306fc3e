package competitors

import (
	"context"
	"maps"

	"github.com/nordisk/katbench/catalog"
)

// openEmbedded opens the embedded catalog an in-process competitor drives,
// in cfg.Dir on cfg.Storage's warehouse, and adds the storage's facts to
// params. The one place a competitor opens the embedded catalog.
func openEmbedded(ctx context.Context, cfg Config, dur catalog.Durability, params map[string]any) (*catalog.Catalog, error) {
	cat, err := catalog.Open(ctx, embeddedOptions(cfg, dur))
	if err != nil {
		return nil, err
	}
	maps.Copy(params, cfg.Storage.Params)
	return cat, nil
}

// embeddedOptions are the catalog options openEmbedded opens with, kept by a
// competitor that reopens its catalog (the cold-load scenario).
func embeddedOptions(cfg Config, dur catalog.Durability) catalog.Options {
	return catalog.Options{
		Dir: cfg.Dir, Durability: dur, Warehouse: cfg.Storage.Warehouse, IOProps: cfg.Storage.IOProps,
		Flush: catalog.Flush(cfg.Flush), CommitLog: cfg.CommitLog,
	}
}
