package restserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// catalogState is everything a bad request could have changed.
type catalogState struct {
	Namespaces []string
	Tables     []string
	NSProps    map[string]iceberg.Properties
	Metadata   map[string]string // table → metadata location
}

func snapshot(t *testing.T, cat icecatalog.Catalog) catalogState {
	t.Helper()
	ctx := context.Background()
	st := catalogState{NSProps: map[string]iceberg.Properties{}, Metadata: map[string]string{}}
	nss, err := cat.ListNamespaces(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss {
		key := strings.Join(ns, ".")
		st.Namespaces = append(st.Namespaces, key)
		props, err := cat.LoadNamespaceProperties(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		st.NSProps[key] = props
		for id, err := range cat.ListTables(ctx, ns) {
			if err != nil {
				t.Fatal(err)
			}
			tk := strings.Join(id, ".")
			st.Tables = append(st.Tables, tk)
			tbl, err := cat.LoadTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			st.Metadata[tk] = tbl.MetadataLocation()
		}
	}
	slices.Sort(st.Namespaces)
	slices.Sort(st.Tables)
	return st
}

const okSchema = `{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}`

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{MaxBodyBytes: 4096, Prefix: "wh"})
	cl := newClient(t, base)
	if err := cl.CreateNamespace(ctx, table.Identifier{"db"}, iceberg.Properties{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.CreateTable(ctx, table.Identifier{"db", "t"}, testSchema); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, cat)
	big := `{"namespace":["x"],"properties":{"k":"` + strings.Repeat("x", 5000) + `"}}`
	commit := func(reqs, updates string) string {
		return `{"requirements":` + reqs + `,"updates":` + updates + `}`
	}

	cases := []struct {
		name, method, path, body string
		want                     int
		wantType                 string
	}{
		{"malformed json", "POST", "/v1/namespaces", `{"namespace": ["x"`, 400, "BadRequestException"},
		{"empty body", "POST", "/v1/namespaces", ``, 400, "BadRequestException"},
		{"trailing data", "POST", "/v1/namespaces", `{"namespace":["x"]} {}`, 400, "BadRequestException"},
		{"namespace wrong type", "POST", "/v1/namespaces", `{"namespace":"x"}`, 400, "BadRequestException"},
		{"namespace empty", "POST", "/v1/namespaces", `{"namespace":[]}`, 400, "BadRequestException"},
		{"namespace dotdot", "POST", "/v1/namespaces", `{"namespace":[".."]}`, 400, "BadRequestException"},
		{"namespace slash", "POST", "/v1/namespaces", `{"namespace":["a/b"]}`, 400, "BadRequestException"},
		{"namespace control char", "POST", "/v1/namespaces", `{"namespace":["a\u0001b"]}`, 400, "BadRequestException"},
		{"namespace empty part", "POST", "/v1/namespaces", `{"namespace":["a",""]}`, 400, "BadRequestException"},
		{"property wrong type", "POST", "/v1/namespaces", `{"namespace":["x"],"properties":{"k":1}}`, 400, "BadRequestException"},
		{"oversized body", "POST", "/v1/namespaces", big, 413, "RequestTooLargeException"},
		{"oversized commit", "POST", "/v1/namespaces/db/tables/t", commit(`[]`, `[{"action":"set-properties","updates":{"k":"`+strings.Repeat("y", 5000)+`"}}]`), 413, "RequestTooLargeException"},
		{"wrong method namespaces", "PUT", "/v1/namespaces", `{}`, 405, "MethodNotAllowedException"},
		{"wrong method table", "PATCH", "/v1/namespaces/db/tables/t", `{}`, 405, "MethodNotAllowedException"},
		{"wrong method config", "DELETE", "/v1/config", ``, 405, "MethodNotAllowedException"},
		{"unknown route", "GET", "/v1/nothing", ``, 404, "NoSuchRouteException"},
		{"not v1", "GET", "/v2/config", ``, 404, "NoSuchRouteException"},
		{"path dotdot namespace", "DELETE", "/v1/namespaces/%2E%2E", ``, 400, "BadRequestException"},
		{"path slash in namespace", "DELETE", "/v1/namespaces/db%2Ft", ``, 400, "BadRequestException"},
		{"path control char", "GET", "/v1/namespaces/a%01b", ``, 400, "BadRequestException"},
		{"path empty level", "GET", "/v1/namespaces/db%1F", ``, 400, "BadRequestException"},
		{"path table dotdot", "DELETE", "/v1/namespaces/db/tables/%2E%2E", ``, 400, "BadRequestException"},
		{"create table bad name", "POST", "/v1/namespaces/db/tables", `{"name":"..","schema":` + okSchema + `}`, 400, "BadRequestException"},
		{"create table no schema", "POST", "/v1/namespaces/db/tables", `{"name":"t2"}`, 400, "BadRequestException"},
		{"create table bad schema", "POST", "/v1/namespaces/db/tables", `{"name":"t2","schema":{"type":"struct","fields":"x"}}`, 400, "BadRequestException"},
		{"create table name wrong type", "POST", "/v1/namespaces/db/tables", `{"name":7,"schema":` + okSchema + `}`, 400, "BadRequestException"},
		{"commit unknown requirement", "POST", "/v1/namespaces/db/tables/t", commit(`[{"type":"bogus"}]`, `[]`), 400, "BadRequestException"},
		{"commit bad update type", "POST", "/v1/namespaces/db/tables/t", commit(`[]`, `[{"action":"set-properties","updates":{"a":5}}]`), 400, "BadRequestException"},
		{"commit unknown update", "POST", "/v1/namespaces/db/tables/t", commit(`[]`, `[{"action":"explode"}]`), 400, "BadRequestException"},
		{"commit missing requirements", "POST", "/v1/namespaces/db/tables/t", `{"updates":[]}`, 400, "BadRequestException"},
		{"commit identifier mismatch", "POST", "/v1/namespaces/db/tables/t", `{"identifier":{"namespace":["db"],"name":"u"},"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`, 400, "BadRequestException"},
		{"commit stale requirement", "POST", "/v1/namespaces/db/tables/t", commit(`[{"type":"assert-current-schema-id","current-schema-id":42}]`, `[{"action":"set-properties","updates":{"a":"b"}}]`), 409, "CommitFailedException"},
		{"rename bad destination", "POST", "/v1/tables/rename", `{"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["db"],"name":"../x"}}`, 400, "BadRequestException"},
		{"rename missing source", "POST", "/v1/tables/rename", `{"destination":{"namespace":["db"],"name":"x"}}`, 400, "BadRequestException"},
		{"rename to existing", "POST", "/v1/wh/tables/rename", `{"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["db"],"name":"t"}}`, 409, "AlreadyExistsException"},
		{"props overlap", "POST", "/v1/namespaces/db/properties", `{"removals":["a"],"updates":{"a":"b"}}`, 422, "UnprocessableEntityException"},
		{"props wrong type", "POST", "/v1/wh/namespaces/db/properties", `{"removals":"a"}`, 400, "BadRequestException"},
		{"drop non-empty namespace", "DELETE", "/v1/namespaces/db", ``, 409, "NamespaceNotEmptyException"},
		{"create existing namespace", "POST", "/v1/namespaces", `{"namespace":["db"]}`, 409, "AlreadyExistsException"},
		{"load missing table", "GET", "/v1/wh/namespaces/db/tables/nope", ``, 404, "NoSuchTableException"},
		{"load missing namespace", "GET", "/v1/namespaces/nope", ``, 404, "NoSuchNamespaceException"},
		{"stage create of an existing table", "POST", "/v1/namespaces/db/tables", `{"name":"t","stage-create":true,"schema":` + okSchema + `}`, 409, "AlreadyExistsException"},
		{"stage create outside the warehouse", "POST", "/v1/namespaces/db/tables", `{"name":"t3","stage-create":true,"location":"file:///tmp/x","schema":` + okSchema + `}`, 400, "BadRequestException"},
		{"config unknown warehouse", "GET", "/v1/config?warehouse=elsewhere", ``, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, hdr := do(t, tc.method, base+tc.path, "", tc.body)
			if code != tc.want {
				t.Fatalf("%s %s: status %d, want %d; body %s", tc.method, tc.path, code, tc.want, body)
			}
			if tc.wantType != "" {
				var er errorResponse
				if err := json.Unmarshal([]byte(body), &er); err != nil {
					t.Fatalf("error body %q: %v", body, err)
				}
				if er.Error.Type != tc.wantType || er.Error.Code != tc.want || er.Error.Message == "" {
					t.Fatalf("error body %+v, want type %s code %d", er.Error, tc.wantType, tc.want)
				}
			}
			if code == http.StatusMethodNotAllowed && hdr.Get("Allow") == "" {
				t.Fatal("405 without Allow header")
			}
			if after := snapshot(t, cat); !reflect.DeepEqual(before, after) {
				t.Fatalf("catalog changed:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// TestWarehouseMismatch checks a server bound to a warehouse refuses a
// config request for another.
func TestWarehouseMismatch(t *testing.T) {
	_, base := startServer(t, newEmbedded(t), Options{Warehouse: "wh1"})
	if code, body, _ := do(t, "GET", base+"/v1/config?warehouse=other", "", ""); code != http.StatusBadRequest {
		t.Fatalf("status %d (%s), want 400", code, body)
	}
	if code, body, _ := do(t, "GET", base+"/v1/config?warehouse=wh1", "", ""); code != http.StatusOK {
		t.Fatalf("status %d (%s), want 200", code, body)
	}
}

// TestPrefixRoutes checks the advertised prefix and that routes answer both
// with and without it.
func TestPrefixRoutes(t *testing.T) {
	_, base := startServer(t, newEmbedded(t), Options{Prefix: "wh"})
	code, body, _ := do(t, "GET", base+"/v1/config", "", "")
	if code != 200 {
		t.Fatalf("config: %d", code)
	}
	var cr configResponse
	if err := json.Unmarshal([]byte(body), &cr); err != nil {
		t.Fatal(err)
	}
	if cr.Overrides["prefix"] != "wh" {
		t.Fatalf("overrides %v lack prefix", cr.Overrides)
	}
	if !slices.Contains(cr.Endpoints, "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}") {
		t.Fatalf("endpoints %v lack HEAD table", cr.Endpoints)
	}
	for _, p := range []string{"/v1/namespaces", "/v1/wh/namespaces"} {
		if code, body, _ := do(t, "GET", base+p, "", ""); code != 200 {
			t.Fatalf("GET %s: %d %s", p, code, body)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	cat := newEmbedded(t)
	for _, o := range []Options{
		{TokenTTL: -1},
		{MaxBodyBytes: -5},
		{Prefix: "namespaces"},
		{Prefix: "a/b"},
		{Credential: "id:"},
		{Credential: "id:se\ncret"},
		{RequiredScope: "catalog"},
	} {
		if _, err := New(cat, o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(%+v): %v, want ErrBadOptions", o, err)
		}
	}
	if _, err := New(nil, Options{}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("New(nil): %v, want ErrBadOptions", err)
	}
}
