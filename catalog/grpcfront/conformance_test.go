package grpcfront_test

import (
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/catalogtest"

	"github.com/nordisk/katbench/catalog/grpcfront"
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
