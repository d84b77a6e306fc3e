package catalog

import (
	"errors"
	"net/url"
	"path"
	"path/filepath"
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
//	go test ./catalog -run '^$' -fuzz FuzzLocationProperties -fuzztime 10m

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
		assertWrittenUnderWarehouse(t, loc.loc)
		// The checked location gives the metadata directory parsing it
		// again gives.
		dir, at, err := c.metadataDir(loc.loc, iceberg.Properties{}, nil)
		if err != nil {
			t.Fatalf("metadataDir(%q): %v", loc.loc, err)
		}
		kdir, kat, err := c.metadataDir(loc.loc, iceberg.Properties{}, &loc)
		if err != nil || kdir != dir || kat != at {
			t.Fatalf("metadataDir(%q) with its checked form = %q, %+v, %v; parsed again %q, %+v", loc.loc, kdir, kat, err, dir, at)
		}
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

// FuzzLocationProperties fuzzes a table location and the value of one
// location property (LocationProperties). When the catalog accepts both,
// every place a file of the table would be written is inside the
// warehouse: the metadata files the catalog names itself, and the data
// files, manifests and manifest lists iceberg-go's location provider names
// from the same properties (plain and object-storage layouts). A refusal
// wraps ErrInvalidLocation and names the property or the location.
func FuzzLocationProperties(f *testing.F) {
	for i, v := range []string{
		fuzzWarehouse + "/t/meta", "file:///tmp/outside", "/tmp/outside", fuzzWarehouse + "/p/t/../../../../x",
		fuzzWarehouse + "/%2e%2e/x", "s3://victim/pwned", fuzzWarehouse, fuzzWarehouse + "/", "", fuzzWarehouse + "/a%252e%252e",
	} {
		f.Add(fuzzWarehouse+"/ns/t", uint8(i), v, i%2 == 0)
	}
	c := fuzzPolicyCatalog(f)
	f.Fuzz(func(t *testing.T, loc string, which uint8, val string, objectStore bool) {
		prop := LocationProperties[int(which)%len(LocationProperties)]
		props := iceberg.Properties{prop: val}
		if objectStore {
			props[table.ObjectStoreEnabledKey] = "true"
		}
		dir, at, err := c.metadataDir(loc, props, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalidLocation) {
				t.Fatalf("metadataDir(%q, %s=%q): %v does not wrap ErrInvalidLocation", loc, prop, val, err)
			}
			if !strings.Contains(err.Error(), prop) && !strings.Contains(err.Error(), "location") {
				t.Fatalf("refusal %q names neither %s nor the location", err, prop)
			}
			return
		}
		// The policy catalog loads no IO: fileIn names the file all the same.
		file, _ := c.fileIn(dir, at, "00000-0.metadata.json")
		if parsed, err := parseLocation(file.loc); err != nil || parsed != file.at {
			t.Fatalf("the metadata file %q is known as %+v; parsed it is %+v (%v)", file.loc, file.at, parsed, err)
		}
		if p, ok := file.localPath(); ok {
			if want, _ := localPath(file.loc); filepath.Clean(p) != filepath.Clean(want) {
				t.Fatalf("the metadata file %q is written at %q, its location names %q", file.loc, p, want)
			}
		}
		assertWrittenUnderWarehouse(t, file.loc)
		if err := c.CheckLocationProperties(props); err != nil {
			t.Fatalf("metadataDir accepted %s=%q but CheckLocationProperties refuses it: %v", prop, val, err)
		}
		provider, err := table.LoadLocationProvider(strings.TrimRight(loc, "/"), props)
		if err != nil {
			return // iceberg-go cannot use it either: nothing is written
		}
		assertWrittenUnderWarehouse(t, provider.NewDataLocation("f.parquet"))
		assertWrittenUnderWarehouse(t, provider.NewMetadataLocation("snap-1.avro"))
	})
}

// localPath returns, parsing loc on its own, the local file path of a
// file:// URI or a plain absolute path, and whether loc is local at all.
func localPath(loc string) (string, bool) {
	if strings.HasPrefix(loc, "/") {
		return loc, true
	}
	u, err := url.Parse(loc)
	if err != nil || !strings.EqualFold(u.Scheme, "file") {
		return "", false
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}
