package restserver

import (
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/catalogtest"
	"github.com/apache/iceberg-go/catalog/rest"
)

// TestConformance runs iceberg-go's catalog conformance suite through
// iceberg-go's REST client against this server over loopback, on a fresh
// embedded catalog per test, with and without authentication.
func TestConformance(t *testing.T) {
	t.Run("NoAuth", func(t *testing.T) {
		catalogtest.RunCatalogTests(t, catalogtest.Config{
			SupportsNamespaceProperties: true,
			NewCatalog: func(t *testing.T) icecatalog.Catalog {
				_, url := startServer(t, newEmbedded(t), Options{})
				return newClient(t, url)
			},
		})
	})
	t.Run("Credential", func(t *testing.T) {
		catalogtest.RunCatalogTests(t, catalogtest.Config{
			SupportsNamespaceProperties: true,
			NewCatalog: func(t *testing.T) icecatalog.Catalog {
				_, url := startServer(t, newEmbedded(t), Options{Credential: "bench:s3cr3t", RequiredScope: "catalog"})
				return newClient(t, url, rest.WithCredential("bench:s3cr3t"))
			},
		})
	})
	// The generic path: a catalog without LoadMetadataJSON, whose metadata
	// the server encodes itself.
	t.Run("GenericCatalog", func(t *testing.T) {
		catalogtest.RunCatalogTests(t, catalogtest.Config{
			SupportsNamespaceProperties: true,
			NewCatalog: func(t *testing.T) icecatalog.Catalog {
				_, url := startServer(t, plainCatalog{newEmbedded(t)}, Options{})
				return newClient(t, url)
			},
		})
	})
	t.Run("Prefix", func(t *testing.T) {
		catalogtest.RunCatalogTests(t, catalogtest.Config{
			SupportsNamespaceProperties: true,
			NewCatalog: func(t *testing.T) icecatalog.Catalog {
				_, url := startServer(t, newEmbedded(t), Options{Prefix: "wh1"})
				return newClient(t, url)
			},
		})
	})
}
