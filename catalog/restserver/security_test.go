package restserver

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// filesUnder lists every regular file below root.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestRefusedNamesAndLocations holds the regression tests of the four
// security defects, through HTTP: each request answers 400 with an
// ErrorModel naming the field, and nothing is written — no catalog change,
// no file outside the catalog dir, no file in the working directory.
func TestRefusedNamesAndLocations(t *testing.T) {
	root := t.TempDir()
	catDir := filepath.Join(root, "x", "y", "cat")
	cat := openEmbeddedAt(t, catDir)
	_, base := startServer(t, cat, Options{})
	for _, p := range []string{`{"namespace":["db"]}`} {
		if code, body, _ := do(t, "POST", base+"/v1/namespaces", "", p); code != 200 {
			t.Fatalf("setup: %d %s", code, body)
		}
	}
	if code, body, _ := do(t, "POST", base+"/v1/namespaces/db/tables", "", `{"name":"t","schema":`+okSchema+`}`); code != 200 {
		t.Fatalf("setup: %d %s", code, body)
	}
	wh := cat.Warehouse()
	before := snapshot(t, cat)
	cwd, _ := os.Getwd()
	cwdBefore := len(filesUnder(t, cwd))
	create := func(name, loc string) string {
		b, _ := json.Marshal(map[string]any{"name": name, "location": loc, "schema": json.RawMessage(okSchema)})
		return string(b)
	}
	setLoc := func(loc string) string {
		return `{"requirements":[],"updates":[{"action":"set-location","location":` + strings.TrimSpace(mustJSON(loc)) + `}]}`
	}
	for _, tc := range []struct {
		name, method, path, body, field string
	}{
		// defect 1: a namespace literally named %2e%2e decoded to ".." in the location
		{"namespace %2e%2e in body", "POST", "/v1/namespaces", `{"namespace":["%2e%2e"]}`, "namespace"},
		{"namespace %2e%2e in path", "POST", "/v1/namespaces/%252e%252e/tables", `{"name":"t2","schema":` + okSchema + `}`, "namespace"},
		{"table %2e%2e", "POST", "/v1/namespaces/db/tables", `{"name":"%2e%2e","schema":` + okSchema + `}`, "name"},
		{"namespace double-encoded", "POST", "/v1/namespaces", `{"namespace":["%252e%252e"]}`, "namespace"},
		// defect 3: empty, relative, outside-warehouse create locations and set-location
		{"empty location", "POST", "/v1/namespaces/db/tables", create("t2", ""), "location"},
		{"relative location", "POST", "/v1/namespaces/db/tables", create("t2", "rel/dir"), "location"},
		{"outside location", "POST", "/v1/namespaces/db/tables", create("t2", "file://"+filepath.ToSlash(root)+"/outside"), "location"},
		{"dotdot location", "POST", "/v1/namespaces/db/tables", create("t2", wh+"/%2e%2e/%2e%2e/x"), "location"},
		{"set-location relative", "POST", "/v1/namespaces/db/tables/t", setLoc("rel"), "set-location"},
		{"set-location outside", "POST", "/v1/namespaces/db/tables/t", setLoc("file:///tmp/elsewhere"), "set-location"},
		// defect 4: s3:// on a file:// warehouse was a 500
		{"s3 location on file warehouse", "POST", "/v1/namespaces/db/tables", create("t2", "s3://bucket/t2"), "location"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := do(t, tc.method, base+tc.path, "", tc.body)
			if code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", code, body)
			}
			var er errorResponse
			if err := json.Unmarshal([]byte(body), &er); err != nil || er.Error.Code != 400 || er.Error.Type != "BadRequestException" {
				t.Fatalf("body %s is not a 400 ErrorModel: %v", body, err)
			}
			if !strings.Contains(er.Error.Message, tc.field) {
				t.Errorf("message %q does not name the field %q", er.Error.Message, tc.field)
			}
			if after := snapshot(t, cat); !reflect.DeepEqual(before, after) {
				t.Fatalf("catalog changed:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
	for _, f := range filesUnder(t, root) {
		if !strings.HasPrefix(f, catDir+string(filepath.Separator)) {
			t.Errorf("file written outside the catalog dir: %s", f)
		}
	}
	if n := len(filesUnder(t, cwd)); n != cwdBefore {
		t.Errorf("files appeared in the working directory: %d -> %d", cwdBefore, n)
	}
}

// TestInvalidEscapeNamesGetOwnLocations is the regression test of defect
// 2: names with a '%' that is no valid escape each get their own location
// inside the warehouse, never the warehouse root.
func TestInvalidEscapeNamesGetOwnLocations(t *testing.T) {
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	if code, body, _ := do(t, "POST", base+"/v1/namespaces", "", `{"namespace":["n%zz"]}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	seen := map[string]bool{}
	for _, name := range []string{"t%", "t%zz", "%%", "a%2"} {
		b, _ := json.Marshal(map[string]any{"name": name, "schema": json.RawMessage(okSchema)})
		code, body, _ := do(t, "POST", base+"/v1/namespaces/n%25zz/tables", "", string(b))
		if code != 200 {
			t.Fatalf("create %q: %d %s", name, code, body)
		}
		var resp struct {
			Metadata struct {
				Location string `json:"location"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		loc := resp.Metadata.Location
		if !strings.HasPrefix(loc, cat.Warehouse()+"/") || seen[loc] {
			t.Errorf("table %q: location %q is the warehouse root, outside it, or shared", name, loc)
		}
		seen[loc] = true
	}
}

// TestSpecStatuses covers what schema-driven and model-based fuzzing
// reported: a nested namespace create with a missing parent answers 404
// NoSuchNamespaceException naming the parent (what iceberg-go's and the
// Java client map to their no-such-namespace error), and HEAD 404s carry
// no Content-Type (they have no body).
func TestSpecStatuses(t *testing.T) {
	_, base := startServer(t, newEmbedded(t), Options{})
	code, body, _ := do(t, "POST", base+"/v1/namespaces", "", `{"namespace":["nope","child"]}`)
	var er errorResponse
	if err := json.Unmarshal([]byte(body), &er); err != nil || code != http.StatusNotFound ||
		er.Error.Type != "NoSuchNamespaceException" || er.Error.Message != "Namespace does not exist: nope" {
		t.Errorf("nested create under a missing parent: %d %s, want 404 NoSuchNamespaceException naming nope", code, body)
	}
	for _, p := range []string{"/v1/namespaces/nope", "/v1/namespaces/nope/tables/t", "/v1/namespaces/nope/views/v", "/v1/nothing"} {
		code, body, hdr := do(t, "HEAD", base+p, "", "")
		if code != http.StatusNotFound || body != "" {
			t.Errorf("HEAD %s: %d %q, want a bare 404", p, code, body)
		}
		if ct := hdr.Get("Content-Type"); ct != "" {
			t.Errorf("HEAD %s: 404 with Content-Type %q", p, ct)
		}
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
