package grpcfront_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// TestTableLifecycle drives what the conformance suite leaves out — create
// with spec/order/properties, commit through a transaction, list, rename,
// drop — through the client, checking each effect on the embedded catalog
// directly.
func TestTableLifecycle(t *testing.T) {
	ctx := context.Background()
	cl, cat := embeddedClient(t)
	ns := table.Identifier{"life"}
	ident := table.Identifier{"life", "t"}
	if err := cl.CreateNamespace(ctx, ns, iceberg.Properties{"owner": "me"}); err != nil {
		t.Fatal(err)
	}

	spec := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1000, Name: "id_bucket", Transform: iceberg.BucketTransform{NumBuckets: 4}})
	order, err := table.NewSortOrder(1, []table.SortField{{SourceIDs: []int{2}, Transform: iceberg.IdentityTransform{}, Direction: table.SortASC, NullOrder: table.NullsFirst}})
	if err != nil {
		t.Fatal(err)
	}
	created, err := cl.CreateTable(ctx, ident, testSchema,
		icecatalog.WithPartitionSpec(&spec),
		icecatalog.WithSortOrder(order),
		icecatalog.WithProperties(iceberg.Properties{"p": "1"}))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if sp := created.Spec(); sp.NumFields() != 1 || created.SortOrder().Len() != 1 || created.Properties()["p"] != "1" {
		t.Fatalf("created table lost options: spec=%v order=%v props=%v", created.Spec(), created.SortOrder(), created.Properties())
	}

	// Commit through iceberg-go's transaction: requirements and updates
	// cross the wire as JSON.
	tx := created.NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{"committed": "yes"}); err != nil {
		t.Fatal(err)
	}
	committed, err := tx.Commit(ctx)
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	if committed.MetadataLocation() == created.MetadataLocation() {
		t.Fatal("commit did not move the metadata location")
	}
	direct, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if direct.Properties()["committed"] != "yes" || direct.MetadataLocation() != committed.MetadataLocation() {
		t.Fatalf("embedded catalog sees props=%v loc=%s, want committed=yes at %s",
			direct.Properties(), direct.MetadataLocation(), committed.MetadataLocation())
	}

	var listed []table.Identifier
	for id, err := range cl.ListTables(ctx, ns) {
		if err != nil {
			t.Fatalf("list tables: %v", err)
		}
		listed = append(listed, id)
	}
	if len(listed) != 1 || !slices.Equal(listed[0], ident) {
		t.Fatalf("list tables = %v, want [%v]", listed, ident)
	}

	to := table.Identifier{"life", "renamed"}
	renamed, err := cl.RenameTable(ctx, ident, to)
	if err != nil {
		t.Fatalf("rename: %v", err)
	}
	if !slices.Equal(renamed.Identifier(), to) {
		t.Fatalf("renamed identifier = %v", renamed.Identifier())
	}
	if ok, _ := cat.CheckTableExists(ctx, ident); ok {
		t.Fatal("old name still exists after rename")
	}
	if err := cl.DropTable(ctx, to); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if ok, _ := cat.CheckTableExists(ctx, to); ok {
		t.Fatal("table exists after drop")
	}
	nss, err := cl.ListNamespaces(ctx, nil)
	if err != nil || len(nss) != 1 || !slices.Equal(nss[0], ns) {
		t.Fatalf("list namespaces = %v, %v", nss, err)
	}
}

// TestWarmLoadUsesCache: metadata is parsed once per metadata location; a
// warm load and a resolve return the very same parsed metadata.
func TestWarmLoadUsesCache(t *testing.T) {
	ctx := context.Background()
	cl, cat := embeddedClient(t)
	ident := table.Identifier{"c", "t"}
	if err := cat.CreateNamespace(ctx, table.Identifier{"c"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, ident, testSchema); err != nil {
		t.Fatal(err)
	}
	first, err := cl.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	second, err := cl.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := cl.ResolveMetadata(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if first.Metadata() != second.Metadata() || resolved != first.Metadata() {
		t.Fatal("warm load re-parsed metadata: different Metadata values for one location")
	}
	if n := cl.CachedMetadataCount(); n != 1 {
		t.Fatalf("cached locations = %d, want 1", n)
	}

	// A commit elsewhere moves the location: the next load must see it.
	if _, _, err := cat.CommitTable(ctx, ident, nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"v": "2"})}); err != nil {
		t.Fatal(err)
	}
	fresh, err := cl.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Properties()["v"] != "2" || fresh.Metadata() == first.Metadata() {
		t.Fatalf("load after commit returned stale metadata (props %v)", fresh.Properties())
	}
	if n := cl.CachedMetadataCount(); n != 1 {
		t.Fatalf("cached locations = %d, want 1 (the superseded one dropped)", n)
	}

	// Other tables get entries of their own.
	other := table.Identifier{"c", "u"}
	if _, err := cl.CreateTable(ctx, other, testSchema); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.LoadTable(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n := cl.CachedMetadataCount(); n != 2 {
		t.Fatalf("cached locations = %d, want 2 (one per table)", n)
	}
}

// TestCallsAfterClose fail with ErrClientClosed, not a context error.
func TestCallsAfterClose(t *testing.T) {
	cl, _ := embeddedClient(t)
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	err := cl.Control(context.Background())
	if !errors.Is(err, grpcfront.ErrClientClosed) || errors.Is(err, context.Canceled) {
		t.Fatalf("call after close: %v, want ErrClientClosed", err)
	}
	if _, err := cl.LoadTable(context.Background(), table.Identifier{"a", "b"}); !errors.Is(err, grpcfront.ErrClientClosed) {
		t.Fatalf("load after close: %v, want ErrClientClosed", err)
	}
}
