package competitors

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
)

// embedded is the bbolt catalog in the run's directory: the no-network
// reference.
type embedded struct {
	Base
	cat *catalog.Catalog
}

var (
	_ MetadataResolver = (*embedded)(nil)
	_ Controller       = (*embedded)(nil)
	_ Durable          = (*embedded)(nil)
)

// Control is a no-op: in-process there is no path between the caller and
// the catalog, so the floor is one call through the capability interface
// between two clock reads.
func (*embedded) Control(context.Context) error { return nil }

// DurabilityMode is the mode the catalog was opened in.
func (e *embedded) DurabilityMode() string { return string(e.cat.Durability()) }

// ResolveMetadata is the catalog's metadata fast path.
func (e *embedded) ResolveMetadata(ctx context.Context, ident table.Identifier) (table.Metadata, error) {
	return e.cat.ResolveMetadata(ctx, ident)
}

// Ephemeral: the warehouse lives in the run's directory.
func (*embedded) Ephemeral() bool { return true }

func init() {
	Register(Factory{
		Name:        "embedded",
		Description: "the bbolt catalog in-process, in a fresh directory (no network)",
		Durability:  true,
		Peer:        "sql",
		New:         newEmbedded,
	})
}

func newEmbedded(ctx context.Context, cfg Config) (Competitor, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("embedded: no directory given")
	}
	d, err := catalog.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	p := map[string]any{"dir": cfg.Dir, "durability": string(d)}
	cat, err := openEmbedded(ctx, cfg, d, p)
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return &embedded{
		Base: Base{N: "embedded", Cat: cat, P: p, CloseFn: cat.Close},
		cat:  cat,
	}, nil
}
