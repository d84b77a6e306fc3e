package catalog_test

import (
	"context"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/catalogtest"
	"github.com/nordisk/katbench/catalog"
)

// TestConformance runs iceberg-go's own catalog conformance suite, each test
// on a fresh catalog in its own directory.
func TestConformance(t *testing.T) {
	catalogtest.RunCatalogTests(t, catalogtest.Config{
		SupportsNamespaceProperties: true,
		NewCatalog: func(t *testing.T) icecatalog.Catalog {
			c, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() {
				if err := c.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			return c
		},
	})
}
