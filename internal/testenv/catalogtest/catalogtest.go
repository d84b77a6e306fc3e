// Package catalogtest gives tests a scratch embedded catalog. It lives
// apart from testenv because the catalog's own tests import testenv.
package catalogtest

import (
	"context"
	"testing"

	"github.com/nordisk/katbench/catalog"
)

// Open opens an embedded catalog that syncs nothing in a fresh temp dir,
// closed when the test ends.
func Open(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}
