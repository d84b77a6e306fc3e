package catalog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
)

func TestParseDurability(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want catalog.Durability
		ok   bool
	}{
		{"", catalog.Immediate, true},
		{"immediate", catalog.Immediate, true},
		{" Eventual ", catalog.Eventual, true},
		{"NONE", catalog.None, true},
		{"fsync", "", false},
		{"eventually", "", false},
	} {
		got, err := catalog.ParseDurability(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("ParseDurability(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if !tc.ok && !errors.Is(err, catalog.ErrInvalidDurability) {
			t.Errorf("ParseDurability(%q) error = %v; want ErrInvalidDurability", tc.in, err)
		}
	}
}

func TestOpenInvalidDurabilityWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cat")
	_, err := catalog.Open(context.Background(), catalog.Options{Dir: dir, Durability: "sometimes"})
	if !errors.Is(err, catalog.ErrInvalidDurability) {
		t.Fatalf("Open with bad durability: %v; want ErrInvalidDurability", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open with bad durability created %s (stat err %v)", dir, err)
	}
}

func TestOpenCreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	c := openAt(t, dir, "")
	if c.Path() != filepath.Join(dir, catalog.DBFileName) {
		t.Fatalf("Path() = %s", c.Path())
	}
	if _, err := os.Stat(c.Path()); err != nil {
		t.Fatalf("bbolt file missing: %v", err)
	}
	if c.Durability() != catalog.Immediate {
		t.Fatalf("default durability = %s", c.Durability())
	}
}

func TestOpenUnwritableDir(t *testing.T) {
	// A path below a regular file can never be created, even by root.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "cat")
	_, err := catalog.Open(context.Background(), catalog.Options{Dir: dir})
	if err == nil {
		t.Fatal("Open below a regular file succeeded")
	}
	if !strings.Contains(err.Error(), dir) {
		t.Fatalf("error does not name the dir: %v", err)
	}
}

func TestOpenLockedFile(t *testing.T) {
	dir := t.TempDir()
	openAt(t, dir, "")
	done := make(chan error, 1)
	go func() {
		c, err := catalog.Open(context.Background(), catalog.Options{Dir: dir, LockTimeout: 100 * time.Millisecond})
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	// The bound here only keeps a broken lock timeout from hanging the test
	// run; it is not a performance threshold.
	select {
	case err := <-done:
		if !errors.Is(err, catalog.ErrLocked) {
			t.Fatalf("second Open: %v; want ErrLocked", err)
		}
		if !strings.Contains(err.Error(), filepath.Join(dir, catalog.DBFileName)) {
			t.Fatalf("error does not name the file: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("second Open of a locked file hung")
	}
}

func TestClosedCatalog(t *testing.T) {
	c, _ := openTemp(t)
	ns := mustNS(t, c, "ns")
	mustTable(t, c, "ns", "t")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx := context.Background()
	if _, err := c.LoadTable(ctx, table.Identifier{"ns", "t"}); !errors.Is(err, catalog.ErrClosed) {
		t.Errorf("LoadTable after Close: %v", err)
	}
	if _, err := c.CheckTableExists(ctx, table.Identifier{"ns", "t"}); !errors.Is(err, catalog.ErrClosed) {
		t.Errorf("CheckTableExists after Close: %v", err)
	}
	if err := c.CreateNamespace(ctx, table.Identifier{"x"}, nil); !errors.Is(err, catalog.ErrClosed) {
		t.Errorf("CreateNamespace after Close: %v", err)
	}
	if _, err := c.LoadNamespaceProperties(ctx, ns); !errors.Is(err, catalog.ErrClosed) {
		t.Errorf("LoadNamespaceProperties after Close: %v", err)
	}
}

// TestReopenKeepsEverything closes a catalog holding nested namespaces,
// properties, tables and committed metadata and checks that every mode's
// reopened catalog holds exactly the same.
func TestReopenKeepsEverything(t *testing.T) {
	for _, d := range catalog.Durabilities {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			c, err := catalog.Open(ctx, catalog.Options{Dir: dir, Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			mustNS(t, c, "db")
			mustNS(t, c, "db", "sub")
			if _, err := c.UpdateNamespaceProperties(ctx, table.Identifier{"db", "sub"}, []string{"owner"}, iceberg.Properties{"k": "v"}); err != nil {
				t.Fatal(err)
			}
			mustTable(t, c, "db", "t1")
			mustTable(t, c, "db", "sub", "t2")
			meta, loc, err := c.CommitTable(ctx, table.Identifier{"db", "t1"}, nil,
				[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"color": "blue"})})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}

			r := openAt(t, dir, d)
			if got, _ := r.ListNamespaces(ctx, nil); len(got) != 1 || !slices.Equal(got[0], table.Identifier{"db"}) {
				t.Errorf("top namespaces after reopen = %v", got)
			}
			if got, _ := r.ListNamespaces(ctx, table.Identifier{"db"}); len(got) != 1 || !slices.Equal(got[0], table.Identifier{"db", "sub"}) {
				t.Errorf("children of db after reopen = %v", got)
			}
			props, err := r.LoadNamespaceProperties(ctx, table.Identifier{"db", "sub"})
			if err != nil || props["k"] != "v" || len(props) != 1 {
				t.Errorf("props after reopen = %v, %v", props, err)
			}
			if got := listTables(t, r, table.Identifier{"db"}); len(got) != 1 || !slices.Equal(got[0], table.Identifier{"db", "t1"}) {
				t.Errorf("tables in db = %v", got)
			}
			tbl, err := r.LoadTable(ctx, table.Identifier{"db", "t1"})
			if err != nil {
				t.Fatal(err)
			}
			if tbl.MetadataLocation() != loc || !tbl.Metadata().Equals(meta) {
				t.Errorf("reloaded t1 = %s, want %s with the committed metadata", tbl.MetadataLocation(), loc)
			}
			if tbl.Properties()["color"] != "blue" {
				t.Errorf("committed property lost: %v", tbl.Properties())
			}
			if ok, _ := r.CheckTableExists(ctx, table.Identifier{"db", "sub", "t2"}); !ok {
				t.Error("t2 missing after reopen")
			}
		})
	}
}

// TestInvalidIdentifiersChangeNothing feeds every mutating method bad
// identifiers and checks that each is rejected with ErrInvalidIdentifier and
// that neither bbolt's content nor the warehouse changed.
func TestInvalidIdentifiersChangeNothing(t *testing.T) {
	ctx := context.Background()
	c, dir := openTemp(t)
	mustNS(t, c, "ns")
	mustTable(t, c, "ns", "t")
	before := tree(t, dir)
	nsBefore, _ := c.ListNamespaces(ctx, nil)

	bad := []table.Identifier{
		{}, {""}, {"ns", ""}, {"a/b"}, {"ns", "x/y"}, {"."}, {"ns", ".."},
		{"ns", "nul\x00"}, {"ns", "tab\t"}, {"ns", "bell\a"}, {"ns", "\x7f"}, {"ns", "bad\xffutf8"},
	}
	for _, id := range bad {
		checks := map[string]error{
			"CreateNamespace": c.CreateNamespace(ctx, id, nil),
			"DropNamespace":   c.DropNamespace(ctx, id),
			"DropTable":       c.DropTable(ctx, id),
		}
		_, checks["UpdateNamespaceProperties"] = c.UpdateNamespaceProperties(ctx, id, nil, iceberg.Properties{"a": "b"})
		_, checks["CreateTable"] = c.CreateTable(ctx, id, testSchema)
		_, checks["RenameTable(from)"] = c.RenameTable(ctx, id, table.Identifier{"ns", "t2"})
		_, checks["RenameTable(to)"] = c.RenameTable(ctx, table.Identifier{"ns", "t"}, id)
		_, _, checks["CommitTable"] = c.CommitTable(ctx, id, []table.Requirement{table.AssertCreate()},
			[]table.Update{table.NewSetLocationUpdate("file:///tmp/x")})
		_, checks["CheckTableExists"] = c.CheckTableExists(ctx, id)
		_, checks["LoadTable"] = c.LoadTable(ctx, id)
		for name, err := range checks {
			if !errors.Is(err, icecatalog.ErrInvalidIdentifier) {
				t.Errorf("%s(%q) = %v; want ErrInvalidIdentifier", name, []string(id), err)
			}
		}
	}
	if after := tree(t, dir); !slices.Equal(before, after) {
		t.Errorf("warehouse changed: before %v after %v", before, after)
	}
	nsAfter, _ := c.ListNamespaces(ctx, nil)
	if len(nsAfter) != len(nsBefore) {
		t.Errorf("namespaces changed: %v -> %v", nsBefore, nsAfter)
	}
	if got := listTables(t, c, table.Identifier{"ns"}); len(got) != 1 {
		t.Errorf("tables changed: %v", got)
	}
}
