package restserver

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// getTable does GET of db.t on base with the given If-None-Match (none
// when inm is "") and returns the status, the ETag and the body.
func getTable(t *testing.T, base, inm string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/namespaces/db/tables/t", nil)
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
