package competitors

import (
	"context"
	"iter"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"

	"github.com/nordisk/katbench/catalog"
)

// ViewCatalog is the capability to serve Iceberg views. Its method set is
// that of iceberg-go's REST client (rest.Catalog), so every REST competitor
// has it as it is; iceberg-go v0.7.0 defines no view interface of its own.
// The embedded catalog has it through the competitor (its own view methods
// return metadata and locations rather than *view.View). iceberg-go's SQL
// catalog does not: its views are created from SQL text alone and cannot
// be replaced.
type ViewCatalog interface {
	CreateView(ctx context.Context, ident table.Identifier, version *view.Version, schema *iceberg.Schema, opts ...icecatalog.CreateViewOpt) (*view.View, error)
	LoadView(ctx context.Context, ident table.Identifier) (*view.View, error)
	CheckViewExists(ctx context.Context, ident table.Identifier) (bool, error)
	ListViews(ctx context.Context, ns table.Identifier) iter.Seq2[table.Identifier, error]
	// UpdateView commits a view change (a new version: a replace).
	UpdateView(ctx context.Context, ident table.Identifier, reqs []view.Requirement, updates []view.Update) (*view.View, error)
	DropView(ctx context.Context, ident table.Identifier) error
}

var (
	_ ViewCatalog = (*embedded)(nil)
	_ ViewCatalog = (*rest.Catalog)(nil)
)

// CreateView creates a view in the embedded catalog.
func (e *embedded) CreateView(ctx context.Context, ident table.Identifier, version *view.Version, schema *iceberg.Schema, opts ...icecatalog.CreateViewOpt) (*view.View, error) {
	cfg := icecatalog.NewCreateViewCfg()
	for _, o := range opts {
		o(&cfg)
	}
	meta, loc, err := e.cat.CreateView(ctx, ident, catalog.ViewSpec{Version: version, Schema: schema, Location: cfg.Location, Properties: cfg.Properties})
	if err != nil {
		return nil, err
	}
	return view.New(ident, meta, loc), nil
}

// LoadView loads a view of the embedded catalog.
func (e *embedded) LoadView(ctx context.Context, ident table.Identifier) (*view.View, error) {
	meta, loc, _, err := e.cat.LoadView(ctx, ident)
	if err != nil {
		return nil, err
	}
	return view.New(ident, meta, loc), nil
}

// CheckViewExists reports whether ident names a view.
func (e *embedded) CheckViewExists(ctx context.Context, ident table.Identifier) (bool, error) {
	return e.cat.CheckViewExists(ctx, ident)
}

// ListViews lists the views directly inside ns.
func (e *embedded) ListViews(ctx context.Context, ns table.Identifier) iter.Seq2[table.Identifier, error] {
	return func(yield func(table.Identifier, error) bool) {
		ids, err := e.cat.ListViews(ctx, ns)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, id := range ids {
			if !yield(id, nil) {
				return
			}
		}
	}
}

// UpdateView commits a view change.
func (e *embedded) UpdateView(ctx context.Context, ident table.Identifier, reqs []view.Requirement, updates []view.Update) (*view.View, error) {
	meta, loc, err := e.cat.CommitView(ctx, ident, reqs, updates)
	if err != nil {
		return nil, err
	}
	return view.New(ident, meta, loc), nil
}

// DropView removes a view.
func (e *embedded) DropView(ctx context.Context, ident table.Identifier) error {
	return e.cat.DropView(ctx, ident)
}
