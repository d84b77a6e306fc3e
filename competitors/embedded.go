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
	cat  *catalog.Catalog
	opts catalog.Options
}

var (
	_ MetadataResolver = (*embedded)(nil)
	_ Controller       = (*embedded)(nil)
	_ Durable          = (*embedded)(nil)
	_ Reopener         = (*embedded)(nil)
)

// Reopen closes the catalog and opens it again from its bbolt file: the
// pointers are read back, but no table's metadata is parsed until it is
// first loaded.
func (e *embedded) Reopen(ctx context.Context) error {
	if err := e.cat.Close(); err != nil {
		return fmt.Errorf("embedded: reopen: close: %w", err)
	}
	cat, err := catalog.Open(ctx, e.opts)
	if err != nil {
		return fmt.Errorf("embedded: reopen: %w", err)
	}
	e.cat, e.Cat = cat, cat
	return nil
}

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
		Store:       StoreBbolt,
		Storage:     true,
		Peer:        "sql",
		FileFloor:   FileFloorName,
		DirState:    true,
		Example: `  katbench embedded --quick
  katbench embedded --quick --durability eventual
  eval "$(containers/versitygw_up.sh)"; katbench embedded --quick --warehouse s3://katbench/wh`,
		New: newEmbedded,
	})
}

func newEmbedded(ctx context.Context, cfg Config) (Competitor, error) {
	return newEmbeddedNamed(ctx, "embedded", cfg)
}

// newEmbeddedNamed opens the embedded catalog as competitor name, with the
// commit log when cfg.CommitLog says so.
func newEmbeddedNamed(ctx context.Context, name string, cfg Config) (Competitor, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%s: no directory given", name)
	}
	d, err := catalog.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := map[string]any{"dir": cfg.Dir, "durability": string(d)}
	addDirFS(p, cfg.Dir)
	cat, err := openEmbedded(ctx, cfg, d, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if d == catalog.Immediate {
		p["flush"] = string(cat.FlushMode())
		if cfg.CommitLog {
			p["commit_log"] = true
		}
	}
	e := &embedded{
		Base: Base{TargetName: name, Cat: cat, LineParams: p},
		cat:  cat,
		opts: embeddedOptions(cfg, d),
	}
	e.CloseFn = func() error { return e.cat.Close() }
	return e, nil
}
