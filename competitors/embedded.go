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

var _ MetadataResolver = (*embedded)(nil)

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
