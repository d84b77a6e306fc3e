package grpcfront_test

import (
	"context"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/catalogtest"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/internal/testenv/s3wh"
	"github.com/nordisk/katbench/transport"
)

// TestConformance runs iceberg-go's catalog conformance suite through the
// gRPC client against a server over a fresh embedded catalog per test.
func TestConformance(t *testing.T) {
	catalogtest.RunCatalogTests(t, catalogtest.Config{
		SupportsNamespaceProperties: true,
		NewCatalog: func(t *testing.T) icecatalog.Catalog {
			cl, _ := embeddedClient(t)
			return cl
		},
	})
}

// TestConformanceGenericPath runs the suite again with the server on its
// generic path (no LoadMetadataJSON: load the table, encode its metadata).
func TestConformanceGenericPath(t *testing.T) {
	catalogtest.RunCatalogTests(t, catalogtest.Config{
		SupportsNamespaceProperties: true,
		NewCatalog: func(t *testing.T) icecatalog.Catalog {
			s := serve(t, plainCatalog{openEmbedded(t)}, grpcfront.ServerOptions{})
			return dial(t, s.addr, grpcfront.ClientOptions{})
		},
	})
}

// TestConformanceS3 runs the suite through the gRPC front once more with the
// served catalog's warehouse on S3 (versitygw, over io_uring).
func TestConformanceS3(t *testing.T) {
	wh := s3wh.Versitygw(t, transport.Uring)
	catalogtest.RunCatalogTests(t, catalogtest.Config{
		SupportsNamespaceProperties: true,
		NewCatalog: func(t *testing.T) icecatalog.Catalog {
			cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Warehouse: wh.Next(), IOProps: wh.Props})
			if err != nil {
				t.Fatalf("open embedded catalog: %v", err)
			}
			t.Cleanup(func() { _ = cat.Close() })
			s := serve(t, cat, grpcfront.ServerOptions{})
			return dial(t, s.addr, grpcfront.ClientOptions{})
		},
	})
}
