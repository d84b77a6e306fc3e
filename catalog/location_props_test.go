package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"

	"github.com/nordisk/katbench/catalog"
)

// hostileTarget is a catalog whose warehouse is <root>/warehouse and a
// directory <root>/outside, beside the warehouse, that a hostile property
// aims at. Nothing may ever appear in outside.
type hostileTarget struct {
	c             *catalog.Catalog
	root, outside string
}

func newHostileTarget(t *testing.T) hostileTarget {
	t.Helper()
	root := t.TempDir()
	c := openAt(t, root, catalog.Immediate)
	mustNS(t, c, "ns")
	return hostileTarget{c: c, root: root, outside: filepath.Join(root, "outside")}
}

// hostileValues are location property values outside the warehouse: a
// file URI, a bare path, and a path inside that url.JoinPath would clean
// to one outside.
func (h hostileTarget) hostileValues() map[string]string {
	wh := h.c.Warehouse()
	return map[string]string{
		"file URI":  "file://" + filepath.ToSlash(h.outside),
		"bare path": h.outside,
		"dot-dot":   wh + "/ns/t/../../../outside",
		"other s3":  "s3://victim/pwned",
	}
}

// assertNothingOutside fails when anything exists at h.outside.
func (h hostileTarget) assertNothingOutside(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(h.outside); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists after a refused request (stat: %v): a file was written outside the warehouse", h.outside, err)
	}
}

// assertRefused checks a refusal: ErrInvalidLocation, the property named.
func assertRefused(t *testing.T, err error, prop string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s outside the warehouse was accepted", prop)
	}
	if !errors.Is(err, catalog.ErrInvalidLocation) || !errors.Is(err, iceberg.ErrInvalidArgument) {
		t.Fatalf("error %v does not wrap ErrInvalidLocation and ErrInvalidArgument", err)
	}
	if !strings.Contains(err.Error(), prop) {
		t.Fatalf("error %q does not name the property %s", err, prop)
	}
}

// TestLocationPropertiesRefused runs every location property with every
// hostile value through every write path of the catalog: create, staged
// create (a commit with assert-create), set-properties, a multi-table
// commit, register and a view create. Each is refused naming the property,
// and nothing appears outside the warehouse.
func TestLocationPropertiesRefused(t *testing.T) {
	ctx := context.Background()
	h := newHostileTarget(t)
	base := mustTable(t, h.c, "ns", "base")
	n := 0
	for _, prop := range catalog.LocationProperties {
		for what, val := range h.hostileValues() {
			props := iceberg.Properties{prop: val}
			n++
			name := func(s string) table.Identifier {
				return table.Identifier{"ns", s + strings.ReplaceAll(prop, ".", "_") + "_" + strings.ReplaceAll(what, " ", "_")}
			}
			t.Run(prop+"/"+what, func(t *testing.T) {
				_, err := h.c.CreateTable(ctx, name("create_"), testSchema, icecatalog.WithProperties(props))
				assertRefused(t, err, prop)

				_, _, err = h.c.CommitTable(ctx, name("staged_"), []table.Requirement{table.AssertCreate()}, []table.Update{
					table.NewAssignUUIDUpdate(base.Metadata().TableUUID()),
					table.NewAddSchemaUpdate(testSchema),
					table.NewSetCurrentSchemaUpdate(-1),
					table.NewSetLocationUpdate(h.c.Warehouse() + "/ns/staged"),
					table.NewSetPropertiesUpdate(props),
				})
				assertRefused(t, err, prop)

				_, _, err = h.c.CommitTable(ctx, base.Identifier(), nil, []table.Update{table.NewSetPropertiesUpdate(props)})
				assertRefused(t, err, prop)

				err = h.c.CommitTransaction(ctx, []table.TableCommit{{
					Identifier: base.Identifier(),
					Updates:    []table.Update{table.NewSetPropertiesUpdate(props)},
				}})
				assertRefused(t, err, prop)

				meta, err := table.NewMetadata(testSchema, iceberg.UnpartitionedSpec, table.UnsortedSortOrder, h.c.Warehouse()+"/ns/reg", props)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := json.Marshal(meta)
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(h.root, "warehouse", "ns", "reg", "metadata", "00000-hostile.metadata.json")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, raw, 0o644); err != nil {
					t.Fatal(err)
				}
				_, err = h.c.RegisterTable(ctx, name("reg_"), "file://"+filepath.ToSlash(file))
				assertRefused(t, err, prop)

				ver, err := view.NewVersionFromSQL(1, 0, "select 1", table.Identifier{"ns"})
				if err != nil {
					t.Fatal(err)
				}
				_, _, err = h.c.CreateView(ctx, name("view_"), catalog.ViewSpec{Version: ver, Schema: testSchema, Properties: props})
				assertRefused(t, err, prop)

				h.assertNothingOutside(t)
			})
		}
	}
	if n == 0 {
		t.Fatal("no location property to test")
	}
	// The base table is untouched: still version 0, no hostile property.
	cur, err := h.c.LoadTable(ctx, base.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	if cur.MetadataLocation() != base.MetadataLocation() {
		t.Errorf("a refused commit moved the base table to %s", cur.MetadataLocation())
	}
}

// TestLocationPropertyInsideHonoured checks the other half of the rule:
// write.metadata.path inside the warehouse is kept, and metadata files go
// there.
func TestLocationPropertyInsideHonoured(t *testing.T) {
	ctx := context.Background()
	h := newHostileTarget(t)
	dir := h.c.Warehouse() + "/custom/meta"
	tbl, err := h.c.CreateTable(ctx, table.Identifier{"ns", "t"}, testSchema,
		icecatalog.WithProperties(iceberg.Properties{table.WriteMetadataPathKey: dir + "/", table.WriteDataPathKey: h.c.Warehouse() + "/custom/data"}))
	if err != nil {
		t.Fatalf("in-warehouse write.metadata.path refused: %v", err)
	}
	if !strings.HasPrefix(tbl.MetadataLocation(), dir+"/00000-") {
		t.Fatalf("metadata written at %s, want under %s", tbl.MetadataLocation(), dir)
	}
	if _, err := os.Stat(strings.TrimPrefix(tbl.MetadataLocation(), "file://")); err != nil {
		t.Fatal(err)
	}
	if err := h.c.CheckLocationProperties(tbl.Metadata().Properties()); err != nil {
		t.Errorf("CheckLocationProperties refuses the accepted table's properties: %v", err)
	}
}

// attacker is a TCP listener on loopback that counts the connections it
// accepts and keeps what they sent.
type attacker struct {
	l        net.Listener
	accepted atomic.Int64
	mu       sync.Mutex
	got      []byte
	wg       sync.WaitGroup
}

func newAttacker(t *testing.T) *attacker {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &attacker{l: l}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			a.accepted.Add(1)
			buf := make([]byte, 4096)
			n, _ := conn.Read(buf)
			a.mu.Lock()
			a.got = append(a.got, buf[:n]...)
			a.mu.Unlock()
			conn.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); a.wg.Wait() })
	return a
}

func (a *attacker) endpoint() string { return "http://" + a.l.Addr().String() }

// TestClientIOPropertiesNeverReachServerIO is the SSRF probe: a table
// whose properties name another S3 endpoint and keys, with metadata aimed
// at another bucket, is refused, and the catalog opens no connection to
// that endpoint — nor when the table is created in the warehouse with those
// IO properties and committed to.
func TestClientIOPropertiesNeverReachServerIO(t *testing.T) {
	ctx := context.Background()
	h := newHostileTarget(t)
	a := newAttacker(t)
	ioProps := iceberg.Properties{
		icebergio.S3EndpointURL:     a.endpoint(),
		icebergio.S3AccessKeyID:     "attacker",
		icebergio.S3SecretAccessKey: "attacker-secret",
		icebergio.S3Region:          "us-east-1",
	}
	hostile := iceberg.Properties{table.WriteMetadataPathKey: "s3://victim/pwned"}
	for k, v := range ioProps {
		hostile[k] = v
	}
	_, err := h.c.CreateTable(ctx, table.Identifier{"ns", "ssrf"}, testSchema, icecatalog.WithProperties(hostile))
	assertRefused(t, err, table.WriteMetadataPathKey)

	tbl, err := h.c.CreateTable(ctx, table.Identifier{"ns", "io"}, testSchema, icecatalog.WithProperties(ioProps))
	if err != nil {
		t.Fatalf("create with IO properties only: %v", err)
	}
	if _, _, err := h.c.CommitTable(ctx, tbl.Identifier(), nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	_, _, err = h.c.CommitTable(ctx, tbl.Identifier(), nil, []table.Update{table.NewSetPropertiesUpdate(hostile)})
	assertRefused(t, err, table.WriteMetadataPathKey)
	if n := a.accepted.Load(); n != 0 {
		t.Fatalf("the catalog connected %d times to the endpoint a table property named", n)
	}
}

// TestRegisterNotAMetadataFile checks that registering a directory, a
// missing file or a file that is no metadata is a client error naming the
// field, not a server fault.
func TestRegisterNotAMetadataFile(t *testing.T) {
	ctx := context.Background()
	h := newHostileTarget(t)
	tbl := mustTable(t, h.c, "ns", "t")
	dir := strings.TrimSuffix(tbl.MetadataLocation(), "/"+filepath.Base(tbl.MetadataLocation()))
	junk := filepath.Join(h.root, "warehouse", "ns", "t", "metadata", "junk.json")
	if err := os.WriteFile(junk, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for what, loc := range map[string]string{
		"directory":    dir,
		"missing file": dir + "/00009-missing.metadata.json",
		"not metadata": "file://" + filepath.ToSlash(junk),
	} {
		_, err := h.c.RegisterTable(ctx, table.Identifier{"ns", "r"}, loc)
		if err == nil || !errors.Is(err, iceberg.ErrInvalidArgument) || !strings.Contains(err.Error(), "metadata-location") {
			t.Errorf("register %s: %v, want an invalid-argument error naming metadata-location", what, err)
		}
	}
}
