package grpcfront_test

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// TestLoadTableIfChanged: a conditional load naming the current version is
// answered not-modified with no metadata, on the fast path and the generic
// one; naming an older version or none, with the current metadata.
func TestLoadTableIfChanged(t *testing.T) {
	for _, generic := range []bool{false, true} {
		cat := openEmbedded(t)
		var srvCat icecatalog.Catalog = cat
		if generic {
			srvCat = plainCatalog{cat}
		}
		s := serve(t, srvCat, grpcfront.ServerOptions{})
		cl := dial(t, s.addr, grpcfront.ClientOptions{})
		ctx := context.Background()
		id := table.Identifier{"ns", "t"}
		if err := cl.CreateNamespace(ctx, id[:1], nil); err != nil {
			t.Fatal(err)
		}
		tbl, err := cl.CreateTable(ctx, id, iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int64}))
		if err != nil {
			t.Fatal(err)
		}
		first, err := cl.LoadTableIfChanged(ctx, id, "")
		if err != nil || first.NotModified || first.MetadataBytes == 0 || first.MetadataLocation != tbl.MetadataLocation() {
			t.Fatalf("generic=%v: unconditional load = %+v, %v; want the metadata of %s", generic, first, err, tbl.MetadataLocation())
		}
		same, err := cl.LoadTableIfChanged(ctx, id, first.MetadataLocation)
		if err != nil || !same.NotModified || same.MetadataBytes != 0 || same.MetadataLocation != first.MetadataLocation {
			t.Errorf("generic=%v: load naming the current version = %+v, %v; want not modified, no metadata", generic, same, err)
		}
		if _, _, err := cl.CommitTable(ctx, id, nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})}); err != nil {
			t.Fatal(err)
		}
		newer, err := cl.LoadTableIfChanged(ctx, id, first.MetadataLocation)
		if err != nil || newer.NotModified || newer.MetadataBytes == 0 || newer.MetadataLocation == first.MetadataLocation {
			t.Errorf("generic=%v: load naming an old version = %+v, %v; want the new metadata", generic, newer, err)
		}
	}
}
