package restserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
)

// tablePath is the load path of db.t.
const tablePath = "/v1/namespaces/db/tables/t"

// getTable does GET of db.t on base with the given If-None-Match (none
// when inm is "") and returns the status, the ETag and the body.
func getTable(t *testing.T, base, inm string) (int, string, []byte) {
	t.Helper()
	return getURL(t, base+tablePath, inm)
}

// getURL does GET of u with the given If-None-Match (none when inm is "").
func getURL(t *testing.T, u, inm string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if inm != "" {
		req.Header.Set("If-None-Match", inm)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("ETag"), body
}

// TestLoadTableETag: the real front over a real bbolt catalog, on both
// load paths (the embedded catalog's spliced JSON and the generic
// LoadTable + encode path), answers a load with an ETag, a matching
// If-None-Match with 304 and no body, and after a commit a new ETag with
// the full answer, to the old tag as to none.
func TestLoadTableETag(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		wrap func(icecatalog.Catalog) icecatalog.Catalog
	}{
		{"spliced", func(c icecatalog.Catalog) icecatalog.Catalog { return c }},
		{"generic", func(c icecatalog.Catalog) icecatalog.Catalog { return plainCatalog{c} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat := newEmbedded(t)
			_, base := startServer(t, c.wrap(cat), Options{})
			if err := cat.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
				t.Fatal(err)
			}
			tbl, err := cat.CreateTable(ctx, table.Identifier{"db", "t"}, testSchema)
			if err != nil {
				t.Fatal(err)
			}

			code, tag, body := getTable(t, base, "")
			if code != http.StatusOK || len(body) == 0 {
				t.Fatalf("first load: %d, %d bytes", code, len(body))
			}
			if tag != tableETag(tbl.MetadataLocation()) || len(tag) != 34 || tag[0] != '"' || tag[33] != '"' {
				t.Fatalf("first load: ETag %q, want the quoted tag of %s", tag, tbl.MetadataLocation())
			}
			for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
				code, tag2, body := getTable(t, base, inm)
				if code != http.StatusNotModified || len(body) != 0 || tag2 != tag {
					t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q; want 304, no body, %q", inm, code, len(body), tag2, tag)
				}
			}
			if code, _, body := getTable(t, base, `"not-this-version"`); code != http.StatusOK || len(body) == 0 {
				t.Errorf("If-None-Match of another version: %d, %d bytes; want 200 with the table", code, len(body))
			}

			if _, _, err := cat.CommitTable(ctx, tbl.Identifier(), nil, []table.Update{
				table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"}),
			}); err != nil {
				t.Fatal(err)
			}
			code, newTag, body := getTable(t, base, tag)
			if code != http.StatusOK || len(body) == 0 || newTag == "" || newTag == tag {
				t.Fatalf("after a commit, old tag: %d, %d bytes, ETag %q (old %q); want 200 with a new tag", code, len(body), newTag, tag)
			}
			if code, _, _ := getTable(t, base, newTag); code != http.StatusNotModified {
				t.Errorf("after a commit, new tag: %d, want 304", code)
			}
		})
	}
}

func TestETagListed(t *testing.T) {
	const tag = `"abc"`
	for _, c := range []struct {
		header string
		want   bool
	}{
		{`"abc"`, true}, {`W/"abc"`, true}, {`"x" , "abc"`, true}, {`*`, true},
		{``, false}, {`"abcd"`, false}, {`abc`, false}, {`"ab"c"`, false}, {`,,`, false},
	} {
		if got := etagListed(c.header, tag); got != c.want {
			t.Errorf("etagListed(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

// getTableQuery is getTable of db.t with a query string.
func getTableQuery(t *testing.T, base, query, inm string) (int, string, []byte) {
	t.Helper()
	return getURL(t, base+tablePath+"?"+query, inm)
}

// withSnapshots creates db.t on cat with n snapshots on main (each the
// parent of the next), the first of them also tagged "first".
func withSnapshots(t *testing.T, cat icecatalog.Catalog, n int) *table.Table {
	t.Helper()
	ctx := context.Background()
	if err := cat.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"db", "t"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	var parent *int64
	for i := range n {
		id := int64(1000 + i)
		schemaID := 0
		snap := table.Snapshot{SnapshotID: id, ParentSnapshotID: parent, SequenceNumber: int64(i + 1),
			TimestampMs: tbl.Metadata().LastUpdatedMillis() + int64(i+1), SchemaID: &schemaID,
			ManifestList: tbl.Location() + "/metadata/snap-" + strconv.Itoa(i) + ".avro",
			Summary:      &table.Summary{Operation: table.OpAppend}}
		updates := []table.Update{table.NewAddSnapshotUpdate(&snap), table.NewSetSnapshotRefUpdate("main", id, table.BranchRef, -1, -1, -1)}
		if i == 0 {
			updates = append(updates, table.NewSetSnapshotRefUpdate("first", id, table.TagRef, -1, -1, -1))
		}
		if _, _, err := cat.CommitTable(ctx, tbl.Identifier(), nil, updates); err != nil {
			t.Fatalf("commit snapshot %d: %v", i, err)
		}
		parent = &id
	}
	tbl, err = cat.LoadTable(ctx, tbl.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// snapshotIDs decodes the snapshot ids of a LoadTableResult body.
func snapshotIDs(t *testing.T, body []byte) []int64 {
	t.Helper()
	var res struct {
		Metadata struct {
			Snapshots []struct {
				ID int64 `json:"snapshot-id"`
			} `json:"snapshots"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatalf("decode load answer: %v", err)
	}
	var ids []int64
	for _, s := range res.Metadata.Snapshots {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestLoadTableSnapshotsRefs: ?snapshots=refs answers only the snapshots a
// branch or tag points at (here the tagged first and main's last of four),
// with an ETag of its own that revalidates in that mode; all (or no mode)
// answers every snapshot; iceberg-go's client in refs mode reads the
// answer; an unknown mode is 400.
func TestLoadTableSnapshotsRefs(t *testing.T) {
	for _, c := range []struct {
		name string
		wrap func(icecatalog.Catalog) icecatalog.Catalog
	}{
		{"spliced", func(c icecatalog.Catalog) icecatalog.Catalog { return c }},
		{"generic", func(c icecatalog.Catalog) icecatalog.Catalog { return plainCatalog{c} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat := newEmbedded(t)
			_, base := startServer(t, c.wrap(cat), Options{})
			tbl := withSnapshots(t, cat, 4)
			if n := len(tbl.Metadata().Snapshots()); n != 4 {
				t.Fatalf("table has %d snapshots, want 4", n)
			}

			code, allTag, body := getTableQuery(t, base, "snapshots=all", "")
			if ids := snapshotIDs(t, body); code != http.StatusOK || !slices.Equal(ids, []int64{1000, 1001, 1002, 1003}) {
				t.Fatalf("snapshots=all: %d, snapshots %v; want all four", code, ids)
			}
			code, refsTag, body := getTableQuery(t, base, "snapshots=refs", "")
			if ids := snapshotIDs(t, body); code != http.StatusOK || !slices.Equal(ids, []int64{1000, 1003}) {
				t.Fatalf("snapshots=refs: %d, snapshots %v; want the tagged 1000 and main's 1003", code, ids)
			}
			if refsTag == "" || refsTag == allTag {
				t.Fatalf("ETags: refs %q, all %q; want two different tags", refsTag, allTag)
			}
			if code, _, _ := getTableQuery(t, base, "snapshots=refs", refsTag); code != http.StatusNotModified {
				t.Errorf("refs answer revalidated with its tag: %d, want 304", code)
			}
			if code, _, _ := getTableQuery(t, base, "snapshots=refs", allTag); code != http.StatusOK {
				t.Errorf("refs answer revalidated with the all tag: %d, want 200", code)
			}
			if code, _, _ := getTableQuery(t, base, "snapshots=everything", ""); code != http.StatusBadRequest {
				t.Errorf("snapshots=everything: %d, want 400", code)
			}

			cl := newClient(t, base, rest.WithAdditionalProps(iceberg.Properties{"snapshot-loading-mode": "refs"}))
			got, err := cl.LoadTable(context.Background(), tbl.Identifier())
			if err != nil {
				t.Fatalf("iceberg-go client in refs mode: %v", err)
			}
			if n := len(got.Metadata().Snapshots()); n != 2 || got.CurrentSnapshot() == nil || got.CurrentSnapshot().SnapshotID != 1003 {
				t.Errorf("iceberg-go client in refs mode: %d snapshots, current %v; want 2, 1003", n, got.CurrentSnapshot())
			}
		})
	}
}
