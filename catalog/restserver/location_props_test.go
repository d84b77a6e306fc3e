package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// TestLocationPropertiesThroughHTTP is the write.metadata.path probe on
// every REST route that makes or changes a table: create, stage-create,
// the staged create's commit, a set-properties commit, a multi-table
// commit and register. Each answers 400 BadRequestException naming the
// property, nothing changes in the catalog and no file appears outside it.
func TestLocationPropertiesThroughHTTP(t *testing.T) {
	root := t.TempDir()
	catDir := filepath.Join(root, "cat")
	cat := openEmbeddedAt(t, catDir)
	_, base := startServer(t, cat, Options{})
	wh := cat.Warehouse()
	for _, req := range [][3]string{
		{"POST", "/v1/namespaces", `{"namespace":["db"]}`},
		{"POST", "/v1/namespaces/db/tables", `{"name":"t","schema":` + okSchema + `}`},
	} {
		if code, body, _ := do(t, req[0], base+req[1], "", req[2]); code != 200 {
			t.Fatalf("setup %s: %d %s", req[1], code, body)
		}
	}
	// A metadata file inside the warehouse whose properties aim outside.
	regDir := filepath.Join(catDir, "warehouse", "db", "reg", "metadata")
	if err := os.MkdirAll(regDir, 0o755); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, cat)

	for what, val := range map[string]string{
		"file URI":  "file://" + filepath.ToSlash(root) + "/outside",
		"bare path": root + "/outside",
		"dot-dot":   wh + "/db/t/../../../../outside",
	} {
		for _, prop := range []string{"write.metadata.path", "write.data.path", "write.object-storage.path", "write.folder-storage.path"} {
			props := `{` + mustJSON(prop) + `:` + mustJSON(val) + `}`
			setProps := `{"action":"set-properties","updates":` + props + `}`
			meta := `{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":` + mustJSON(wh+"/db/reg") +
				`,"last-sequence-number":0,"last-updated-ms":1,"last-column-id":1,"current-schema-id":0,"schemas":[` + okSchema +
				`],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":` + props + `}`
			regFile := filepath.Join(regDir, "00000-hostile.metadata.json")
			if err := os.WriteFile(regFile, []byte(meta), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct{ route, path, body string }{
				{"create", "/v1/namespaces/db/tables", `{"name":"t2","schema":` + okSchema + `,"properties":` + props + `}`},
				{"stage-create", "/v1/namespaces/db/tables", `{"name":"t2","stage-create":true,"schema":` + okSchema + `,"properties":` + props + `}`},
				{"staged commit", "/v1/namespaces/db/tables/t2", `{"requirements":[{"type":"assert-create"}],"updates":[` +
					`{"action":"assign-uuid","uuid":"2c6b1b51-7d0e-4f3a-9f4b-0f6f0a1d3c11"},{"action":"upgrade-format-version","format-version":2},` +
					`{"action":"add-schema","schema":` + okSchema + `},{"action":"set-current-schema","schema-id":-1},` +
					`{"action":"set-location","location":` + mustJSON(wh+"/db/t2") + `},` + setProps + `]}`},
				{"set-properties", "/v1/namespaces/db/tables/t", `{"requirements":[],"updates":[` + setProps + `]}`},
				{"transaction", "/v1/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["db"],"name":"t"},"requirements":[],"updates":[` + setProps + `]}]}`},
				{"register", "/v1/namespaces/db/register", `{"name":"r","metadata-location":` + mustJSON("file://"+filepath.ToSlash(regFile)) + `}`},
			} {
				t.Run(what+"/"+prop+"/"+tc.route, func(t *testing.T) {
					code, body, _ := do(t, "POST", base+tc.path, "", tc.body)
					var er errorResponse
					if err := json.Unmarshal([]byte(body), &er); err != nil || code != http.StatusBadRequest || er.Error.Type != "BadRequestException" {
						t.Fatalf("status %d body %s, want a 400 BadRequestException", code, body)
					}
					if !strings.Contains(er.Error.Message, prop) {
						t.Errorf("message %q does not name %s", er.Error.Message, prop)
					}
					if after := snapshot(t, cat); !reflect.DeepEqual(before, after) {
						t.Fatalf("catalog changed:\nbefore %+v\nafter  %+v", before, after)
					}
				})
			}
		}
	}
	for _, f := range filesUnder(t, root) {
		if !strings.HasPrefix(f, catDir+string(filepath.Separator)) {
			t.Errorf("file written outside the catalog dir: %s", f)
		}
	}
}

// TestRegisterDirectoryIsBadRequest: a directory (or a missing file) as
// metadata-location is the client's mistake, 400 naming the field.
func TestRegisterDirectoryIsBadRequest(t *testing.T) {
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	if code, body, _ := do(t, "POST", base+"/v1/namespaces", "", `{"namespace":["db"]}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if code, body, _ := do(t, "POST", base+"/v1/namespaces/db/tables", "", `{"name":"t","schema":`+okSchema+`}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for _, loc := range []string{cat.Warehouse() + "/db/t/metadata", cat.Warehouse() + "/db/t/metadata/none.metadata.json"} {
		code, body, _ := do(t, "POST", base+"/v1/namespaces/db/register", "", `{"name":"r","metadata-location":`+mustJSON(loc)+`}`)
		var er errorResponse
		if err := json.Unmarshal([]byte(body), &er); err != nil || code != http.StatusBadRequest ||
			er.Error.Type != "BadRequestException" || !strings.Contains(er.Error.Message, "metadata-location") {
			t.Errorf("register %s: %d %s, want 400 BadRequestException naming metadata-location", loc, code, body)
		}
	}
}

// TestTableOnViewNameThroughHTTP: the name checks the catalog makes reach
// HTTP with the reference wording, for create and rename.
func TestTableOnViewNameThroughHTTP(t *testing.T) {
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	view := `{"name":"v","schema":` + okSchema + `,"view-version":{"version-id":1,"timestamp-ms":1,"schema-id":0,"summary":{},` +
		`"representations":[{"type":"sql","sql":"select 1","dialect":"spark"}],"default-namespace":["db"]}}`
	for _, req := range [][2]string{
		{"/v1/namespaces", `{"namespace":["db"]}`},
		{"/v1/namespaces/db/views", view},
		{"/v1/namespaces/db/tables", `{"name":"t","schema":` + okSchema + `}`},
	} {
		if code, body, _ := do(t, "POST", base+req[0], "", req[1]); code != 200 {
			t.Fatalf("setup %s: %d %s", req[0], code, body)
		}
	}
	for _, tc := range []struct{ path, body, msg string }{
		{"/v1/namespaces/db/tables", `{"name":"v","schema":` + okSchema + `}`, "View with same name already exists: db.v"},
		{"/v1/tables/rename", `{"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["db"],"name":"v"}}`, "Cannot rename db.t to db.v. View already exists"},
	} {
		code, body, _ := do(t, "POST", base+tc.path, "", tc.body)
		var er errorResponse
		if err := json.Unmarshal([]byte(body), &er); err != nil || code != http.StatusConflict || er.Error.Type != "AlreadyExistsException" || er.Error.Message != tc.msg {
			t.Errorf("POST %s: %d %s, want 409 AlreadyExistsException %q", tc.path, code, body, tc.msg)
		}
	}
}

// TestCreateNamespaceMissingParentClient: iceberg-go's client sees a
// missing parent as ErrNoSuchNamespace.
func TestCreateNamespaceMissingParentClient(t *testing.T) {
	_, base := startServer(t, newEmbedded(t), Options{})
	cl := newClient(t, base)
	err := cl.CreateNamespace(context.Background(), table.Identifier{"nope", "child"}, nil)
	if !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("CreateNamespace under a missing parent: %v, want ErrNoSuchNamespace", err)
	}
}

// TestCommitServerFaultIsCommitStateUnknown: a commit that fails for a
// reason the server cannot place (here its metadata file cannot be
// written: the metadata directory is a regular file) answers 500 with the
// type the spec gives commit routes, CommitStateUnknownException, on the
// table commit and the multi-table commit.
func TestCommitServerFaultIsCommitStateUnknown(t *testing.T) {
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	blocker := filepath.Join(strings.TrimPrefix(cat.Warehouse(), "file://"), "blocker")
	if err := os.MkdirAll(filepath.Dir(blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, []byte("a file, not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, req := range [][2]string{
		{"/v1/namespaces", `{"namespace":["db"]}`},
		{"/v1/namespaces/db/tables", `{"name":"t","schema":` + okSchema + `}`},
	} {
		if code, body, _ := do(t, "POST", base+req[0], "", req[1]); code != 200 {
			t.Fatalf("setup %s: %d %s", req[0], code, body)
		}
	}
	set := `{"action":"set-properties","updates":{"write.metadata.path":` + mustJSON(cat.Warehouse()+"/blocker/meta") + `}}`
	for _, tc := range [][2]string{
		{"/v1/namespaces/db/tables/t", `{"requirements":[],"updates":[` + set + `]}`},
		{"/v1/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["db"],"name":"t"},"requirements":[],"updates":[` + set + `]}]}`},
	} {
		code, body, _ := do(t, "POST", base+tc[0], "", tc[1])
		var er errorResponse
		if err := json.Unmarshal([]byte(body), &er); err != nil || code != http.StatusInternalServerError || er.Error.Type != "CommitStateUnknownException" {
			t.Errorf("POST %s: %d %s, want 500 CommitStateUnknownException", tc[0], code, body)
		}
	}
}
