package restserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
)

// TestViewsThroughIcebergGoClient drives every view route with iceberg-go's
// own REST client: create, load, exists, list, replace through a commit,
// rename, drop, and the table/view name conflicts.
func TestViewsThroughIcebergGoClient(t *testing.T) {
	ctx := context.Background()
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	cl := newClient(t, base)
	ns := table.Identifier{"vdb"}
	if err := cl.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	id := table.Identifier{"vdb", "v"}
	ver, err := view.NewVersionFromSQL(1, 0, "select 1", ns)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cl.CreateView(ctx, id, ver, testSchema)
	if err != nil {
		t.Fatalf("CreateView: %v", err)
	}
	if loc := v.Metadata().Location(); loc != cat.Warehouse()+"/vdb/v" {
		t.Errorf("view location %q", loc)
	}
	if ok, err := cl.CheckViewExists(ctx, id); !ok || err != nil {
		t.Fatalf("CheckViewExists: %v %v", ok, err)
	}
	loaded, err := cl.LoadView(ctx, id)
	if err != nil || loaded.Metadata().CurrentVersion().Representations[0].Sql != "select 1" {
		t.Fatalf("LoadView: %v", err)
	}
	var names []string
	for vid, err := range cl.ListViews(ctx, ns) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, vid[len(vid)-1])
	}
	if !slices.Equal(names, []string{"v"}) {
		t.Fatalf("ListViews = %v", names)
	}
	ver2, _ := view.NewVersionFromSQL(2, 0, "select 2", ns)
	upd, err := cl.UpdateView(ctx, id, []view.Requirement{view.AssertViewUUID(loaded.Metadata().ViewUUID())},
		[]view.Update{view.NewAddViewVersionUpdate(ver2), view.NewSetCurrentVersionUpdate(-1)})
	if err != nil {
		t.Fatalf("UpdateView: %v", err)
	}
	if got := upd.Metadata().CurrentVersion().Representations[0].Sql; got != "select 2" {
		t.Fatalf("replaced view has SQL %q", got)
	}
	// A table may not take a view's name, nor a view a table's.
	if _, err := cl.CreateTable(ctx, id, testSchema); !errors.Is(err, icecatalog.ErrTableAlreadyExists) {
		t.Errorf("CreateTable over a view: %v", err)
	}
	if _, err := cl.CreateTable(ctx, table.Identifier{"vdb", "t"}, testSchema); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.CreateView(ctx, table.Identifier{"vdb", "t"}, ver, testSchema); !errors.Is(err, icecatalog.ErrViewAlreadyExists) {
		t.Errorf("CreateView over a table: %v", err)
	}
	if code, _, _ := do(t, "DELETE", base+"/v1/namespaces/vdb", "", ""); code != http.StatusConflict {
		t.Errorf("drop of a namespace holding a view: %d, want 409", code)
	}
	to := table.Identifier{"vdb", "w"}
	if _, err := cl.RenameView(ctx, id, to); err != nil {
		t.Fatalf("RenameView: %v", err)
	}
	if ok, _ := cl.CheckViewExists(ctx, id); ok {
		t.Error("renamed view still under its old name")
	}
	if err := cl.DropView(ctx, to); err != nil {
		t.Fatalf("DropView: %v", err)
	}
	if _, err := cl.LoadView(ctx, to); !errors.Is(err, icecatalog.ErrNoSuchView) {
		t.Errorf("LoadView after drop: %v", err)
	}
}
