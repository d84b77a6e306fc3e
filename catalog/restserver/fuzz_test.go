package restserver

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// FuzzDecodeRequests feeds arbitrary bytes to every body decoder: none may
// panic, and whatever one accepts must carry valid identifiers.
func FuzzDecodeRequests(f *testing.F) {
	seeds := []string{
		`{"namespace":["a","b"],"properties":{"k":"v"}}`,
		`{"namespace":[".."]}`,
		`{"name":"t","schema":` + okSchema + `,"partition-spec":{"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"name":"id_b","transform":"bucket[4]"}]},"write-order":{"order-id":1,"fields":[{"source-id":1,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}}`,
		`{"requirements":[{"type":"assert-table-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"}],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`,
		`{"identifier":{"namespace":["db"],"name":"t"},"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}],"updates":[{"action":"remove-properties","removals":["a"]}]}`,
		`{"requirements":[{"type":"assert-create"}],"updates":[{"action":"add-schema","schema":` + okSchema + `},{"action":"set-current-schema","schema-id":-1}]}`,
		`{"source":{"namespace":["db"],"name":"a"},"destination":{"namespace":["db"],"name":"b"}}`,
		`{"removals":["a"],"updates":{"b":"c"}}`,
		`{"requirements":[{"type":null}],"updates":[{"action":null}]}`,
		`[]`, `null`, `{`, `""`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if req, err := DecodeCreateNamespace(b); err == nil {
			if validateNamespace(req.Namespace) != nil {
				t.Fatalf("accepted invalid namespace %q", req.Namespace)
			}
		}
		if req, err := DecodeCreateTable(b); err == nil {
			if req.Name == nil || validatePart(*req.Name) != nil || req.Schema == nil {
				t.Fatalf("accepted invalid create-table %q", b)
			}
		}
		if req, err := DecodeCommitTable(b); err == nil && req.Identifier != nil {
			if validateTable(req.Identifier) != nil {
				t.Fatalf("accepted invalid identifier %q", req.Identifier)
			}
		}
		if req, err := DecodeRenameTable(b); err == nil {
			if validateTable(req.Source) != nil || validateTable(req.Destination) != nil {
				t.Fatalf("accepted invalid rename %q", b)
			}
		}
		if req, err := DecodeUpdateNamespaceProperties(b); err == nil {
			for _, k := range req.Removals {
				if _, both := req.Updates[k]; both {
					t.Fatalf("accepted overlapping key %q", k)
				}
			}
		}
	})
}

// FuzzParseNamespacePath checks path parsing never panics, accepts only
// valid namespaces, and round-trips what it accepts through the encoding
// iceberg-go's client uses (each level path-escaped, joined by %1F).
func FuzzParseNamespacePath(f *testing.F) {
	for _, s := range []string{"db", "a%1Fb", "a%1F%1Fb", "%2E%2E", "a%2Fb", "a%01b", "%zz", "", "caf%C3%A9", "%FF", "a b", "a%1F"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, escaped string) {
		ns, err := ParseNamespacePath(escaped)
		if err != nil {
			return
		}
		if validateNamespace(ns) != nil {
			t.Fatalf("accepted invalid namespace %q from %q", ns, escaped)
		}
		parts := make([]string, len(ns))
		for i, p := range ns {
			parts[i] = url.PathEscape(p)
		}
		again, err := ParseNamespacePath(strings.Join(parts, "%1F"))
		if err != nil || !slices.Equal(again, ns) {
			t.Fatalf("round trip of %q: %q, %v", ns, again, err)
		}
	})
}

// FuzzParseRoute checks routing never panics and that a matched route's
// parameters are non-empty where the route has them.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{"/v1/config", "/v1/oauth/tokens", "/v1/namespaces", "/v1/wh/namespaces/db/tables/t",
		"/v1/namespaces/a%1Fb/properties", "/v1/tables/rename", "/v1/namespaces//tables", "/v1/", "/v1/namespaces/db/tables/t/x/y/z", "//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		rt, err := parseRoute(path, "wh")
		if err != nil {
			return
		}
		switch rt.kind {
		case routeNamespace, routeNamespaceProps, routeTables:
			if rt.ns == "" {
				t.Fatalf("%q: empty namespace param", path)
			}
		case routeTable:
			if rt.ns == "" || rt.table == "" {
				t.Fatalf("%q: empty table params", path)
			}
		}
		if allowed[rt.kind] == "" {
			t.Fatalf("%q: route without methods", path)
		}
	})
}

func TestParseNamespacePath(t *testing.T) {
	cases := []struct {
		in   string
		want []string // nil: error
	}{
		{"db", []string{"db"}},
		{"a%1Fb", []string{"a", "b"}},
		{"caf%C3%A9", []string{"café"}},
		{"db%zz", nil},
		{"%2E%2E", nil},
		{"a%2Fb", nil},
		{"a%1F", nil},
		{"", nil},
		{"%FF", nil},
	}
	for _, tc := range cases {
		got, err := ParseNamespacePath(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%q: accepted as %q", tc.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
