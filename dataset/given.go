package dataset

import (
	"context"
	"fmt"
	"slices"
	"strings"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Existing is the dataset of a read-only run: the tables the user
// named, each checked to exist, and their namespaces. Nothing is created,
// and nothing of it is ever dropped.
func Existing(ctx context.Context, cat icecatalog.Catalog, tables []table.Identifier) (*Dataset, error) {
	d := &Dataset{given: true}
	for _, id := range tables {
		ok, err := cat.CheckTableExists(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("--read-only: check table %s: %w", strings.Join(id, "."), err)
		}
		if !ok {
			return nil, fmt.Errorf("--read-only: table %s does not exist (name existing tables, NAMESPACE.TABLE)", strings.Join(id, "."))
		}
		d.Tables = append(d.Tables, id)
		ns := icecatalog.NamespaceFromIdent(id)
		if !slices.ContainsFunc(d.Namespaces, func(n table.Identifier) bool { return slices.Equal(n, ns) }) {
			d.Namespaces = append(d.Namespaces, ns)
		}
	}
	d.Root, d.Work = d.Namespaces[0], d.Namespaces[0]
	return d, nil
}

// Given reports whether d is the user's tables of a read-only run
// (Existing): nothing of it is ever dropped.
func (d *Dataset) Given() bool { return d.given }
