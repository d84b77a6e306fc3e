package catalog_test

import (
	"context"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/catalogtest"
	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/testenv/s3wh"
	"github.com/nordisk/katbench/transport"
)

// TestConformance runs iceberg-go's own catalog conformance suite, each test
// on a fresh catalog in its own directory.
func TestConformance(t *testing.T) {
	runConformance(t, func(t *testing.T) catalog.Options { return catalog.Options{Dir: t.TempDir()} })
}

// TestConformanceCommitLog runs the suite on catalogs whose Immediate
// writes go through the commit log.
func TestConformanceCommitLog(t *testing.T) {
	runConformance(t, func(t *testing.T) catalog.Options { return catalog.Options{Dir: t.TempDir(), CommitLog: true} })
}

// runConformance runs the suite, each test on a catalog opened with the
// options opts returns for it and closed after it.
func runConformance(t *testing.T, opts func(t *testing.T) catalog.Options) {
	catalogtest.RunCatalogTests(t, catalogtest.Config{
		SupportsNamespaceProperties: true,
		NewCatalog: func(t *testing.T) icecatalog.Catalog {
			c, err := catalog.Open(context.Background(), opts(t))
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

// TestConformanceS3 runs the suite once more with every catalog's warehouse
// on S3 (versitygw, over io_uring): metadata files written and read through
// katbench's S3 IO.
func TestConformanceS3(t *testing.T) {
	wh := s3wh.Versitygw(t, transport.Uring)
	runConformance(t, func(t *testing.T) catalog.Options {
		return catalog.Options{Dir: t.TempDir(), Warehouse: wh.Next(), IOProps: wh.Props}
	})
}
