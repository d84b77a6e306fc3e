package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"

	"github.com/nordisk/katbench/catalog"
)

// TestTableOrViewNeverBoth races a table create against a view create on
// one name, many times: exactly one wins every time, the loser's error
// says the other kind holds the name, and the name is then exactly one
// kind. The check lives in the catalog's write transaction, so it holds
// for every front.
func TestTableOrViewNeverBoth(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	ns := mustNS(t, c, "ns")
	ver, err := view.NewVersionFromSQL(1, 0, "select 1", ns)
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 100
	for i := range rounds {
		id := table.Identifier{"ns", fmt.Sprintf("n%03d", i)}
		start := make(chan struct{})
		var wg sync.WaitGroup
		var tableErr, viewErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, tableErr = c.CreateTable(ctx, id, testSchema)
		}()
		go func() {
			defer wg.Done()
			<-start
			_, _, viewErr = c.CreateView(ctx, id, catalog.ViewSpec{Version: ver, Schema: testSchema})
		}()
		close(start)
		wg.Wait()
		switch {
		case tableErr == nil && viewErr == nil:
			t.Fatalf("round %d: %v is both a table and a view", i, id)
		case tableErr != nil && viewErr != nil:
			t.Fatalf("round %d: both creates failed: %v; %v", i, tableErr, viewErr)
		case tableErr != nil && !(errors.Is(tableErr, icecatalog.ErrTableAlreadyExists) && errors.Is(tableErr, catalog.ErrNameTaken)):
			t.Fatalf("round %d: table create lost with %v, want ErrTableAlreadyExists and ErrNameTaken", i, tableErr)
		case viewErr != nil && !(errors.Is(viewErr, icecatalog.ErrViewAlreadyExists) && errors.Is(viewErr, catalog.ErrNameTaken)):
			t.Fatalf("round %d: view create lost with %v, want ErrViewAlreadyExists and ErrNameTaken", i, viewErr)
		}
		isTable, err1 := c.CheckTableExists(ctx, id)
		isView, err2 := c.CheckViewExists(ctx, id)
		if err1 != nil || err2 != nil || isTable == isView || isTable != (tableErr == nil) {
			t.Fatalf("round %d: table %v view %v (%v %v) after table err %v, view err %v", i, isTable, isView, err1, err2, tableErr, viewErr)
		}
	}
}

// TestTableRenameRegisterOntoView checks the other ways a table can get a
// name: a rename and a register onto a view's name are refused.
func TestTableRenameRegisterOntoView(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	ns := mustNS(t, c, "ns")
	ver, err := view.NewVersionFromSQL(1, 0, "select 1", ns)
	if err != nil {
		t.Fatal(err)
	}
	vid := table.Identifier{"ns", "v"}
	if _, _, err := c.CreateView(ctx, vid, catalog.ViewSpec{Version: ver, Schema: testSchema}); err != nil {
		t.Fatal(err)
	}
	tbl := mustTable(t, c, "ns", "t")
	if _, err := c.RenameTable(ctx, tbl.Identifier(), vid); !errors.Is(err, catalog.ErrNameTaken) {
		t.Errorf("rename onto a view: %v, want ErrNameTaken", err)
	}
	if _, err := c.RegisterTable(ctx, vid, tbl.MetadataLocation()); !errors.Is(err, catalog.ErrNameTaken) {
		t.Errorf("register onto a view: %v, want ErrNameTaken", err)
	}
	if _, _, err := c.CommitTable(ctx, vid, []table.Requirement{table.AssertCreate()}, []table.Update{
		table.NewAddSchemaUpdate(testSchema), table.NewSetCurrentSchemaUpdate(-1),
		table.NewSetLocationUpdate(c.Warehouse() + "/ns/v"),
	}); !errors.Is(err, catalog.ErrNameTaken) {
		t.Errorf("staged create onto a view: %v, want ErrNameTaken", err)
	}
	if ok, _ := c.CheckTableExists(ctx, vid); ok {
		t.Error("a view's name became a table")
	}
}

// TestFileModesFollowUmask checks what catalog/doc.go promises: metadata
// files and directories are created 0666 and 0755 less the umask.
func TestFileModesFollowUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })
	c, dir := openTemp(t)
	mustNS(t, c, "ns")
	tbl := mustTable(t, c, "ns", "t")
	file := strings.TrimPrefix(tbl.MetadataLocation(), "file://")
	for p, want := range map[string]os.FileMode{
		file:                            0o600,
		filepath.Dir(file):              0o700,
		filepath.Join(dir, "warehouse"): 0o700,
		c.Path():                        0o600,
	} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o under umask 077", p, got, want)
		}
	}
}
