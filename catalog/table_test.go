package catalog_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
)

var metadataName = regexp.MustCompile(`/metadata/\d{5}-[0-9a-f-]{36}\.metadata\.json$`)

func TestCreateTableLayout(t *testing.T) {
	ctx := context.Background()
	c, dir := openTemp(t)
	mustNS(t, c, "db")
	mustNS(t, c, "db", "sub")
	tbl := mustTable(t, c, "db", "sub", "events")

	wantLoc := "file://" + filepath.ToSlash(filepath.Join(dir, "warehouse", "db", "sub", "events"))
	if tbl.Location() != wantLoc {
		t.Errorf("Location() = %s, want %s", tbl.Location(), wantLoc)
	}
	if !strings.HasPrefix(tbl.MetadataLocation(), wantLoc+"/metadata/00000-") || !metadataName.MatchString(tbl.MetadataLocation()) {
		t.Errorf("MetadataLocation() = %s", tbl.MetadataLocation())
	}
	path := strings.TrimPrefix(tbl.MetadataLocation(), "file://")
	onDisk, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("metadata file not written: %v", err)
	}
	loc, raw, err := c.LoadMetadataJSON(ctx, table.Identifier{"db", "sub", "events"})
	if err != nil || loc != tbl.MetadataLocation() || !bytes.Equal(raw, onDisk) {
		t.Errorf("LoadMetadataJSON = %s, %d bytes, %v; want the file's %d bytes", loc, len(raw), err, len(onDisk))
	}
	parsed, err := table.ParseMetadataBytes(onDisk)
	if err != nil || !parsed.Equals(tbl.Metadata()) {
		t.Errorf("file does not hold the table's metadata: %v", err)
	}
}

func TestCreateTableWithLocationAndNamespaceLocation(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	nsLoc := c.Warehouse() + "/elsewhere"
	if err := c.CreateNamespace(ctx, table.Identifier{"n"}, iceberg.Properties{"location": nsLoc + "/"}); err != nil {
		t.Fatal(err)
	}
	tbl := mustTable(t, c, "n", "a")
	if tbl.Location() != nsLoc+"/a" {
		t.Errorf("namespace location ignored: %s", tbl.Location())
	}
	explicit := c.Warehouse() + "/explicit"
	tbl, err := c.CreateTable(ctx, table.Identifier{"n", "b"}, testSchema, icecatalog.WithLocation(explicit+"/"))
	if err != nil || tbl.Location() != explicit {
		t.Fatalf("WithLocation: %v, %v", tbl, err)
	}
	if _, err := os.Stat(strings.TrimPrefix(tbl.MetadataLocation(), "file://")); err != nil {
		t.Errorf("metadata not at explicit location: %v", err)
	}
}

func TestCreateTableRejectionsWriteNothing(t *testing.T) {
	ctx := context.Background()
	c, dir := openTemp(t)
	mustNS(t, c, "ns")
	mustTable(t, c, "ns", "t")
	before := tree(t, dir)

	if _, err := c.CreateTable(ctx, table.Identifier{"ns", "t"}, testSchema); !errors.Is(err, icecatalog.ErrTableAlreadyExists) {
		t.Errorf("duplicate create: %v", err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"missing", "t"}, testSchema); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("create in missing namespace: %v", err)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"ns", "nil"}, nil); err == nil {
		t.Error("create with nil schema succeeded")
	}
	if after := tree(t, dir); !slices.Equal(before, after) {
		t.Errorf("rejected creates wrote files: %v -> %v", before, after)
	}
}

func TestRenameAcrossNamespaces(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "a")
	mustNS(t, c, "b")
	mustNS(t, c, "b", "c")
	orig := mustTable(t, c, "a", "t")
	mustTable(t, c, "b", "c", "taken")

	from, to := table.Identifier{"a", "t"}, table.Identifier{"b", "c", "moved"}
	moved, err := c.RenameTable(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(moved.Identifier(), to) || moved.MetadataLocation() != orig.MetadataLocation() ||
		!moved.Metadata().Equals(orig.Metadata()) {
		t.Errorf("renamed table = %v at %s", moved.Identifier(), moved.MetadataLocation())
	}
	if ok, _ := c.CheckTableExists(ctx, from); ok {
		t.Error("source still exists")
	}
	if _, err := c.LoadTable(ctx, from); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Errorf("load of source: %v", err)
	}
	loaded, err := c.LoadTable(ctx, to)
	if err != nil || !slices.Equal(loaded.Identifier(), to) {
		t.Fatalf("load of destination: %v %v", loaded, err)
	}
	if got := listTables(t, c, table.Identifier{"a"}); len(got) != 0 {
		t.Errorf("a still lists %v", got)
	}
	if got := listTables(t, c, table.Identifier{"b", "c"}); !containsIdent(got, to) || len(got) != 2 {
		t.Errorf("b.c lists %v", got)
	}

	if _, err := c.RenameTable(ctx, to, table.Identifier{"b", "c", "taken"}); !errors.Is(err, icecatalog.ErrTableAlreadyExists) {
		t.Errorf("rename onto existing: %v", err)
	}
	if _, err := c.RenameTable(ctx, to, table.Identifier{"nope", "x"}); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("rename into missing namespace: %v", err)
	}
	if _, err := c.RenameTable(ctx, from, table.Identifier{"b", "x"}); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Errorf("rename of missing table: %v", err)
	}
	// A commit through the renamed table lands on the new name.
	if _, _, err := c.CommitTable(ctx, to, []table.Requirement{table.AssertTableUUID(orig.Metadata().TableUUID())},
		[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"after": "rename"})}); err != nil {
		t.Fatal(err)
	}
	if m, _ := c.ResolveMetadata(ctx, to); m.Properties()["after"] != "rename" {
		t.Errorf("commit after rename lost: %v", m.Properties())
	}
}

func TestDropThenRecreate(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	ns := mustNS(t, c, "ns")
	id := table.Identifier{"ns", "t"}
	first := mustTable(t, c, "ns", "t")

	if err := c.DropNamespace(ctx, ns); !errors.Is(err, icecatalog.ErrNamespaceNotEmpty) {
		t.Errorf("drop of non-empty namespace: %v", err)
	}
	if err := c.DropTable(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := c.DropTable(ctx, id); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Errorf("second drop: %v", err)
	}
	if ok, _ := c.CheckTableExists(ctx, id); ok {
		t.Error("dropped table exists")
	}
	if _, err := c.ResolveMetadata(ctx, id); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Errorf("ResolveMetadata of dropped table: %v", err)
	}
	second := mustTable(t, c, "ns", "t")
	if second.Metadata().TableUUID() == first.Metadata().TableUUID() || second.MetadataLocation() == first.MetadataLocation() {
		t.Error("recreated table reuses the dropped table's identity")
	}
	got, err := c.LoadTable(ctx, id)
	if err != nil || got.Metadata().TableUUID() != second.Metadata().TableUUID() {
		t.Fatalf("load after recreate: %v", err)
	}
	if err := c.DropTable(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := c.DropNamespace(ctx, ns); err != nil {
		t.Errorf("drop of emptied namespace: %v", err)
	}
}

func TestNestedNamespaces(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	if err := c.CreateNamespace(ctx, table.Identifier{"p", "c"}, nil); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("child without parent: %v", err)
	}
	mustNS(t, c, "p")
	mustNS(t, c, "p", "c1")
	mustNS(t, c, "p", "c2")
	mustNS(t, c, "p", "c1", "g")
	mustNS(t, c, "pq") // shares a prefix with p but is no child of it

	top, _ := c.ListNamespaces(ctx, nil)
	if len(top) != 2 || !containsIdent(top, table.Identifier{"p"}) || !containsIdent(top, table.Identifier{"pq"}) {
		t.Errorf("top level = %v", top)
	}
	kids, _ := c.ListNamespaces(ctx, table.Identifier{"p"})
	if len(kids) != 2 || !containsIdent(kids, table.Identifier{"p", "c1"}) || !containsIdent(kids, table.Identifier{"p", "c2"}) {
		t.Errorf("children of p = %v", kids)
	}
	if _, err := c.ListNamespaces(ctx, table.Identifier{"zz"}); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("list of missing parent: %v", err)
	}
	if err := c.DropNamespace(ctx, table.Identifier{"p", "c1"}); !errors.Is(err, icecatalog.ErrNamespaceNotEmpty) {
		t.Errorf("drop with child: %v", err)
	}
	if _, err := c.UpdateNamespaceProperties(ctx, table.Identifier{"p"}, []string{"k"}, iceberg.Properties{"k": "v"}); !errors.Is(err, iceberg.ErrInvalidArgument) {
		t.Errorf("overlapping update: %v", err)
	}
	s, err := c.UpdateNamespaceProperties(ctx, table.Identifier{"p"}, []string{"owner", "absent"}, iceberg.Properties{"k": "v"})
	if err != nil || !slices.Equal(s.Removed, []string{"owner"}) || !slices.Equal(s.Missing, []string{"absent"}) || !slices.Equal(s.Updated, []string{"k"}) {
		t.Errorf("summary = %+v, %v", s, err)
	}
	for id, err := range c.ListTables(ctx, table.Identifier{"nope"}) {
		if !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
			t.Errorf("ListTables(nope) = %v, %v", id, err)
		}
	}
}

// TestWarmLoadReadsNothing proves warm loads never touch the metadata file:
// after a cold load (on a reopened catalog) the file is deleted, and warm
// LoadTable, ResolveMetadata and LoadMetadataJSON still return exactly what
// the cold load returned.
func TestWarmLoadReadsNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := openAt(t, dir, catalog.Immediate)
	mustNS(t, c, "ns")
	created := mustTable(t, c, "ns", "t")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	r := openAt(t, dir, catalog.Immediate)
	id := table.Identifier{"ns", "t"}
	cold, err := r.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !cold.Metadata().Equals(created.Metadata()) {
		t.Fatal("cold load differs from the created table")
	}
	_, coldRaw, _ := r.LoadMetadataJSON(ctx, id)
	if err := os.Remove(strings.TrimPrefix(cold.MetadataLocation(), "file://")); err != nil {
		t.Fatal(err)
	}

	warm, err := r.LoadTable(ctx, id)
	if err != nil {
		t.Fatalf("warm load after the file was deleted: %v", err)
	}
	if !warm.Equals(*cold) || warm == cold {
		t.Error("warm load differs from the cold load or is the same object")
	}
	meta, err := r.ResolveMetadata(ctx, id)
	if err != nil || meta != cold.Metadata() {
		t.Errorf("ResolveMetadata is not the shared cached metadata: %v", err)
	}
	_, raw, err := r.LoadMetadataJSON(ctx, id)
	if err != nil || !bytes.Equal(raw, coldRaw) {
		t.Errorf("LoadMetadataJSON after delete: %v", err)
	}

	// A third catalog has nothing cached, so its load must hit the deleted
	// file — proving the file was really what the cold path read.
	r.Close()
	r3 := openAt(t, dir, catalog.Immediate)
	if _, err := r3.LoadTable(ctx, id); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cold load of a deleted file: %v", err)
	}
}

// TestResolveMetadataFollowsCommits checks that the cache is keyed by the
// metadata location: each commit yields the new metadata, never the old.
func TestResolveMetadataFollowsCommits(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	id := table.Identifier{"ns", "t"}
	mustTable(t, c, "ns", "t")
	prev, _ := c.ResolveMetadata(ctx, id)
	for i, v := range []string{"1", "2", "3"} {
		_, loc, err := c.CommitTable(ctx, id, nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"v": v})})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(loc, "/metadata/0000"+string(rune('1'+i))+"-") {
			t.Errorf("commit %d wrote %s", i+1, loc)
		}
		m, err := c.ResolveMetadata(ctx, id)
		if err != nil || m.Properties()["v"] != v || m == prev {
			t.Fatalf("after commit %d ResolveMetadata = %v, %v", i+1, m.Properties(), err)
		}
		gotLoc, _, _ := c.LoadMetadataJSON(ctx, id)
		tbl, _ := c.LoadTable(ctx, id)
		if gotLoc != loc || tbl.MetadataLocation() != loc || tbl.Properties()["v"] != v {
			t.Fatalf("after commit %d: json at %s, table at %s", i+1, gotLoc, tbl.MetadataLocation())
		}
		if n := len(slices.Collect(m.PreviousFiles())); n != i+1 {
			t.Errorf("metadata log has %d entries after %d commits", n, i+1)
		}
		prev = m
	}
}
