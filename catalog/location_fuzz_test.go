package catalog

import (
	"errors"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Run longer than make test's seed-corpus pass with, for example:
//
//	go test ./catalog -run '^$' -fuzz FuzzTableLocation -fuzztime 10m
//	go test ./catalog -run '^$' -fuzz FuzzCheckLocation -fuzztime 10m
//	go test ./catalog -run '^$' -fuzz FuzzValidateIdentifier -fuzztime 10m

// fuzzWarehouse is a fixed warehouse for the location fuzzers: no files are
// written, only locations computed.
const fuzzWarehouse = "file:///srv/kb/warehouse"

func fuzzPolicyCatalog(t testing.TB) *Catalog {
	p, err := newLocationPolicy(fuzzWarehouse, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Catalog{warehouse: fuzzWarehouse, locations: p}
}

// assertWrittenUnderWarehouse states the invariant: the local path an IO
// would write (the URI path decoded once, as iceberg-go's IOs do) lies
// strictly inside the warehouse, and neither it nor any further decoding of
// it has a "." or ".." segment.
func assertWrittenUnderWarehouse(t *testing.T, loc string) {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("accepted location %q does not parse: %v", loc, err)
	}
	p := u.Path
	if !strings.HasPrefix(path.Clean(p), "/srv/kb/warehouse/") {
		t.Fatalf("accepted location %q writes to %q, outside the warehouse", loc, path.Clean(p))
	}
	for range maxDecodeRounds {
		for seg := range strings.SplitSeq(p, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("accepted location %q has a dot segment in %q", loc, p)
			}
		}
		d, err := url.PathUnescape(p)
		if err != nil || d == p {
			return
		}
		p = d
	}
}

// FuzzTableLocation builds default table locations from fuzzed namespace
// and table names and checks that every identifier the catalog accepts gets
// a location inside the warehouse.
func FuzzTableLocation(f *testing.F) {
	for _, s := range [][2]string{{"ns", "t"}, {"%2e%2e", "t"}, {"ns", "%zz"}, {"%", "%25"}, {"a b", "c?d"}, {"..%2F..", "x"}, {"ns", "%252e%252e"}, {"ü", "#"}} {
		f.Add(s[0], s[1])
	}
	c := fuzzPolicyCatalog(f)
	f.Fuzz(func(t *testing.T, ns, name string) {
		ident := table.Identifier{ns, name}
		if ValidateIdentifier(ident) != nil {
			return
		}
		loc, err := c.tableLocation(ident, iceberg.Properties{})
		if err != nil {
			t.Fatalf("valid identifier %q got no location: %v", []string(ident), err)
		}
		assertWrittenUnderWarehouse(t, loc)
	})
}

// FuzzCheckLocation checks that any location the policy accepts is inside
// the warehouse, and that a refusal always wraps ErrInvalidLocation.
func FuzzCheckLocation(f *testing.F) {
	for _, s := range []string{fuzzWarehouse + "/t", fuzzWarehouse + "/%2e%2e/x", fuzzWarehouse + "/a/../../b", "s3://b/x", "", "rel", fuzzWarehouse + "/%252e%252e", "file:/srv/kb/warehouse/x", "FILE://localhost/srv/kb/warehouse/y"} {
		f.Add(s)
	}
	c := fuzzPolicyCatalog(f)
	f.Fuzz(func(t *testing.T, loc string) {
		got, err := c.CheckLocation("location", loc)
		if err != nil {
			if !errors.Is(err, ErrInvalidLocation) {
				t.Fatalf("CheckLocation(%q): %v does not wrap ErrInvalidLocation", loc, err)
			}
			return
		}
		assertWrittenUnderWarehouse(t, got)
	})
}
