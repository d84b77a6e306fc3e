package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
)

var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String},
)

// openAt opens a catalog in dir and closes it at the end of the test.
func openAt(t testing.TB, dir string, d catalog.Durability) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(context.Background(), catalog.Options{Dir: dir, Durability: d})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func openTemp(t testing.TB) (*catalog.Catalog, string) {
	t.Helper()
	dir := t.TempDir()
	return openAt(t, dir, catalog.Immediate), dir
}

func mustNS(t testing.TB, c *catalog.Catalog, ns ...string) table.Identifier {
	t.Helper()
	id := table.Identifier(ns)
	if err := c.CreateNamespace(context.Background(), id, iceberg.Properties{"owner": "test"}); err != nil {
		t.Fatalf("CreateNamespace(%v): %v", id, err)
	}
	return id
}

func mustTable(t testing.TB, c *catalog.Catalog, ident ...string) *table.Table {
	t.Helper()
	tbl, err := c.CreateTable(context.Background(), table.Identifier(ident), testSchema)
	if err != nil {
		t.Fatalf("CreateTable(%v): %v", ident, err)
	}
	return tbl
}

func listTables(t testing.TB, c *catalog.Catalog, ns table.Identifier) []table.Identifier {
	t.Helper()
	var out []table.Identifier
	for id, err := range c.ListTables(context.Background(), ns) {
		if err != nil {
			t.Fatalf("ListTables(%v): %v", ns, err)
		}
		out = append(out, id)
	}
	return out
}

// tree lists every file under dir (relative paths, sorted), so a test can
// prove that a rejected call wrote nothing.
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && filepath.Base(p) != catalog.DBFileName {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func containsIdent(list []table.Identifier, id table.Identifier) bool {
	return slices.ContainsFunc(list, func(x table.Identifier) bool { return slices.Equal(x, id) })
}
