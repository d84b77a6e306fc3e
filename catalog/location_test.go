package catalog_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
)

// filesOutside lists every regular file under root that is not under keep.
func filesOutside(t *testing.T, root, keep string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, keep+string(filepath.Separator)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestCheckLocation(t *testing.T) {
	c, dir := openTemp(t)
	wh := c.Warehouse()
	other := "file://" + filepath.ToSlash(t.TempDir())
	for _, tc := range []struct {
		loc, want string // want "" = refused
	}{
		{wh + "/ns/t", wh + "/ns/t"},
		{wh + "/ns/t///", wh + "/ns/t"},
		{wh + "/a%20b/t", wh + "/a%20b/t"},
		{"", ""},
		{"relative/path", ""},
		{"/abs/but/no/scheme", ""},
		{"file:relative", ""},
		{wh, ""},       // the root itself
		{wh + "x", ""}, // a sibling sharing the prefix
		{other + "/t", ""},
		{"s3://bucket/t", ""},
		{wh + "/../escape", ""},
		{wh + "/ns/%2e%2e/%2e%2e/%2e%2e/escape", ""},
		{wh + "/ns/%252e%252e/x", ""},
		{wh + "/ns/a%2F..%2F..%2Fb", ""},
		{wh + "/./t", ""},
		{wh + "//t", ""},
		{wh + "/t?x=1", ""},
		{wh + "/t#f", ""},
		{wh + "/t\x00", ""},
		{"file://otherhost" + strings.TrimPrefix(wh, "file://") + "/t", ""},
	} {
		got, err := c.CheckLocation("location", tc.loc)
		if tc.want == "" {
			if err == nil || !errors.Is(err, catalog.ErrInvalidLocation) || !errors.Is(err, iceberg.ErrInvalidArgument) {
				t.Errorf("CheckLocation(%q) = %q, %v; want ErrInvalidLocation", tc.loc, got, err)
			} else if !strings.HasPrefix(err.Error(), "location: ") {
				t.Errorf("error %q does not name the field", err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CheckLocation(%q) = %q, %v; want %q", tc.loc, got, err, tc.want)
		}
	}
	_ = dir
}

func TestAllowedLocations(t *testing.T) {
	ctx := context.Background()
	allowed := "file://" + filepath.ToSlash(t.TempDir())
	c, err := catalog.Open(ctx, catalog.Options{Dir: t.TempDir(), AllowedLocations: []string{allowed}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	mustNS(t, c, "ns")
	tbl, err := c.CreateTable(ctx, table.Identifier{"ns", "t"}, testSchema, icecatalog.WithLocation(allowed+"/t"))
	if err != nil || tbl.Location() != allowed+"/t" {
		t.Fatalf("create under an allowed location: %v", err)
	}
	for _, bad := range []string{"", "relative", "s3://", allowed + "/../x"} {
		if _, err := catalog.Open(ctx, catalog.Options{Dir: t.TempDir(), AllowedLocations: []string{bad}}); err == nil {
			t.Errorf("Open accepted allowed location %q", bad)
		}
	}
}

// TestPercentNamespaceCannotEscape is the regression test of the path
// escape: a namespace literally named "%2e%2e" decoded to ".." when the
// table location was built, and the metadata file landed above the
// warehouse. Now such a name is refused, and nothing is written anywhere.
func TestPercentNamespaceCannotEscape(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	c := openAt(t, dir, catalog.Immediate)
	for _, ns := range []table.Identifier{{"%2e%2e"}, {"%2E%2e"}, {"%252e%252e"}, {"x%2F..%2F.."}, {"%2e"}, {"a%2Fb"}, {"%00"}} {
		err := c.CreateNamespace(ctx, ns, nil)
		if !errors.Is(err, icecatalog.ErrInvalidIdentifier) {
			t.Errorf("CreateNamespace(%q) = %v; want ErrInvalidIdentifier", []string(ns), err)
		}
	}
	mustNS(t, c, "ns")
	for _, name := range []string{"%2e%2e", "..%2F..", "%252e%252e"} {
		if _, err := c.CreateTable(ctx, table.Identifier{"ns", name}, testSchema); !errors.Is(err, icecatalog.ErrInvalidIdentifier) {
			t.Errorf("CreateTable(ns.%q) = %v; want ErrInvalidIdentifier", name, err)
		}
	}
	if got := filesOutside(t, root, dir); len(got) != 0 {
		t.Fatalf("files written outside the catalog dir: %v", got)
	}
}

// TestInvalidEscapeNameGetsOwnLocation is the regression test of names with
// a '%' that is no valid escape: they were given the warehouse root as
// their location. Each now gets its own directory under the warehouse.
func TestInvalidEscapeNameGetsOwnLocation(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns%zz")
	seen := map[string]string{}
	for _, name := range []string{"t%", "t%zz", "%%", "100%", "a%2"} {
		tbl, err := c.CreateTable(ctx, table.Identifier{"ns%zz", name}, testSchema)
		if err != nil {
			t.Fatalf("CreateTable(%q): %v", name, err)
		}
		loc := tbl.Location()
		if !strings.HasPrefix(loc, c.Warehouse()+"/") || loc == c.Warehouse() {
			t.Errorf("table %q got location %q, not inside the warehouse %q", name, loc, c.Warehouse())
		}
		if prev, dup := seen[loc]; dup {
			t.Errorf("tables %q and %q share location %q", prev, name, loc)
		}
		seen[loc] = name
	}
}

// TestLocationsValidated is the regression test of unvalidated locations:
// an empty, relative, outside or foreign-scheme create location, and a
// set-location commit, are refused with ErrInvalidLocation and write
// nothing (an s3:// location on a file:// warehouse was a 500).
func TestLocationsValidated(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "cat")
	c := openAt(t, dir, catalog.Immediate)
	mustNS(t, c, "ns")
	cwd, _ := os.Getwd()
	before := filesOutside(t, cwd, filepath.Join(cwd, "nonexistent"))
	for _, loc := range []string{" ", "relative/dir", "./x", "/tmp/no-scheme", "file://" + filepath.ToSlash(root) + "/outside", "s3://bucket/t", "file:///etc"} {
		_, err := c.CreateTable(ctx, table.Identifier{"ns", "t"}, testSchema, icecatalog.WithLocation(loc))
		if !errors.Is(err, catalog.ErrInvalidLocation) {
			t.Errorf("CreateTable(location %q) = %v; want ErrInvalidLocation", loc, err)
		}
	}
	if ok, _ := c.CheckTableExists(ctx, table.Identifier{"ns", "t"}); ok {
		t.Fatal("a refused create left a table")
	}
	tbl := mustTable(t, c, "ns", "t")
	for _, loc := range []string{"", "relative", "s3://bucket/x", "file://" + filepath.ToSlash(root) + "/outside", c.Warehouse() + "/%2e%2e/x"} {
		_, _, err := c.CommitTable(ctx, tbl.Identifier(), nil, []table.Update{table.NewSetLocationUpdate(loc)})
		if !errors.Is(err, catalog.ErrInvalidLocation) {
			t.Errorf("set-location %q = %v; want ErrInvalidLocation", loc, err)
		}
	}
	again, err := c.LoadTable(ctx, tbl.Identifier())
	if err != nil || again.MetadataLocation() != tbl.MetadataLocation() {
		t.Fatalf("a refused set-location changed the table: %v", err)
	}
	if got := filesOutside(t, root, dir); len(got) != 0 {
		t.Errorf("files written outside the catalog dir: %v", got)
	}
	if after := filesOutside(t, cwd, filepath.Join(cwd, "nonexistent")); len(after) != len(before) {
		t.Errorf("files written in the working directory: %d before, %d after", len(before), len(after))
	}
}
