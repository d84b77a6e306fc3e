package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
)

// TestListTablesAfter pages through a namespace with a nested namespace
// whose tables sort between its own, at every page size, and gets exactly
// ListTables' list, in order, each table once.
func TestListTablesAfter(t *testing.T) {
	c, _ := openTemp(t)
	ctx := context.Background()
	ns := mustNS(t, c, "db")
	mustNS(t, c, "db", "m") // "m\x00…" keys sort among db's own tables
	for _, n := range []string{"a", "b", "l", "m", "ma", "z"} {
		mustTable(t, c, "db", n)
	}
	for _, n := range []string{"x", "y"} {
		mustTable(t, c, "db", "m", n)
	}
	var want []string
	for _, id := range listTables(t, c, ns) {
		want = append(want, strings.Join(id, "."))
	}
	if strings.Join(want, ",") != "db.a,db.b,db.l,db.m,db.ma,db.z" {
		t.Fatalf("ListTables = %v", want)
	}
	for size := 1; size <= 7; size++ {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatalf("size %d: no last page after 10", size)
			}
			ids, more, err := c.ListTablesAfter(ctx, ns, after, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) > size || (more && len(ids) != size) {
				t.Fatalf("size %d: page of %d, more %v", size, len(ids), more)
			}
			for _, id := range ids {
				got = append(got, strings.Join(id, "."))
			}
			if !more {
				break
			}
			after = ids[len(ids)-1][len(ids[len(ids)-1])-1]
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("size %d: paged %v, want %v", size, got, want)
		}
	}
	// A name between two tables starts the page after it.
	if ids, _, err := c.ListTablesAfter(ctx, ns, "c", 1); err != nil || len(ids) != 1 || ids[0][1] != "l" {
		t.Fatalf("after \"c\": %v, %v; want db.l", ids, err)
	}
	if _, _, err := c.ListTablesAfter(ctx, mustNS(t, c, "empty"), "", 0); err == nil {
		t.Fatal("limit 0 accepted")
	}
	if _, _, err := c.ListTablesAfter(ctx, []string{"nope"}, "", 5); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Fatalf("missing namespace: %v", err)
	}
}
