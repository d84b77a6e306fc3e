package dataset

import (
	"slices"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Children returns the dataset namespaces directly under parent.
func (d *Dataset) Children(parent table.Identifier) []table.Identifier {
	var out []table.Identifier
	for _, ns := range d.Namespaces {
		if len(ns) == len(parent)+1 && slices.Equal(ns[:len(parent)], parent) {
			out = append(out, ns)
		}
	}
	return out
}

// Leaf returns the namespace of the dataset's first table and how many
// dataset tables it holds.
func (d *Dataset) Leaf() (table.Identifier, int) {
	ns := icecatalog.NamespaceFromIdent(d.Tables[0])
	n := 0
	for _, id := range d.Tables {
		if slices.Equal(icecatalog.NamespaceFromIdent(id), ns) {
			n++
		}
	}
	return ns, n
}

// Leaves returns the dataset's leaf namespaces (those that hold tables),
// in creation order.
func (d *Dataset) Leaves() []table.Identifier {
	var out []table.Identifier
	for _, id := range d.Tables {
		ns := icecatalog.NamespaceFromIdent(id)
		if len(out) == 0 || !slices.Equal(out[len(out)-1], ns) {
			out = append(out, ns)
		}
	}
	return out
}
