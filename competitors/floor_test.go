package competitors

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestFloorCommitWritesTheCatalogsBytes: a commit costs the floor as many
// bytes as it costs the embedded catalog. The catalog's metadata file grows
// with each commit by one metadata-log entry, up to 100; the floor's must
// grow alike, or its commits would stand for a fraction of the catalog's
// file work. After 130 commits to one table on each, the newest files'
// sizes are within 15 % of each other, and the floor's is JSON listing
// the 100 previous files, the newest last.
func TestFloorCommitWritesTheCatalogsBytes(t *testing.T) {
	ctx := context.Background()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String})
	size := map[string]int{}
	var floorRaw []byte
	var floorLocs []string
	for _, name := range []string{"embedded", FileFloorName} {
		f, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.New(ctx, Config{Dir: t.TempDir(), Durability: "immediate"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		cat := c.Catalog()
		ns, id := table.Identifier{"ns"}, table.Identifier{"ns", "t"}
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
			t.Fatal(err)
		}
		tbl, err := cat.CreateTable(ctx, id, schema)
		if err != nil {
			t.Fatal(err)
		}
		locs := []string{tbl.MetadataLocation()}
		for i := range 130 {
			_, loc, err := cat.CommitTable(ctx, id, nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"n": fmt.Sprint(i)})})
			if err != nil {
				t.Fatal(err)
			}
			locs = append(locs, loc)
		}
		raw, err := os.ReadFile(strings.TrimPrefix(locs[len(locs)-1], "file://"))
		if err != nil {
			t.Fatal(err)
		}
		size[name] = len(raw)
		if name == FileFloorName {
			floorRaw, floorLocs = raw, locs
		}
	}
	t.Logf("newest metadata file after 130 commits: %v bytes", size)
	if r := float64(size[FileFloorName]) / float64(size["embedded"]); r < 0.85 || r > 1.15 {
		t.Errorf("floor writes %d bytes per commit, the catalog %d (%.2f×): the floor does not stand for the catalog's file work", size[FileFloorName], size["embedded"], r)
	}
	var doc struct {
		Log []struct {
			File string `json:"metadata-file"`
			MS   int64  `json:"timestamp-ms"`
		} `json:"metadata-log"`
	}
	if err := json.Unmarshal(floorRaw, &doc); err != nil {
		t.Fatalf("the floor's commit file is not JSON: %v", err)
	}
	if len(doc.Log) != floorLogMax {
		t.Fatalf("metadata log of %d entries, want %d", len(doc.Log), floorLogMax)
	}
	prev := floorLocs[len(floorLocs)-1-floorLogMax : len(floorLocs)-1]
	for i, e := range doc.Log {
		if e.File != prev[i] || e.MS <= 0 {
			t.Fatalf("entry %d: %s at %d, want %s", i, e.File, e.MS, prev[i])
		}
	}
}
