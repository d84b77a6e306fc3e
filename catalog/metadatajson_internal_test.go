package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// wideSchema has a field of every primitive type format version 2 has,
// nested types, docs, identifier fields and names that encoding/json
// escapes.
func wideSchema(t testing.TB) *iceberg.Schema {
	t.Helper()
	fields := []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true, Doc: "the key"},
		{ID: 2, Name: "b", Type: iceberg.PrimitiveTypes.Bool},
		{ID: 3, Name: "i", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		{ID: 4, Name: "f", Type: iceberg.PrimitiveTypes.Float32},
		{ID: 5, Name: "d", Type: iceberg.PrimitiveTypes.Float64},
		{ID: 6, Name: "day", Type: iceberg.PrimitiveTypes.Date},
		{ID: 7, Name: "tod", Type: iceberg.PrimitiveTypes.Time},
		{ID: 8, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
		{ID: 9, Name: "tstz", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		{ID: 12, Name: "s", Type: iceberg.PrimitiveTypes.String, Doc: `a "quoted" <doc> & \ back`},
		{ID: 13, Name: "bin", Type: iceberg.PrimitiveTypes.Binary},
		{ID: 14, Name: "u", Type: iceberg.PrimitiveTypes.UUID},
		{ID: 15, Name: "dec", Type: iceberg.DecimalTypeOf(10, 2)},
		{ID: 16, Name: "fx", Type: iceberg.FixedTypeOf(16)},
		{ID: 17, Name: "é<&>\"\\\u2028\x01", Type: iceberg.PrimitiveTypes.String},
		{ID: 26, Name: "a<b>&c", Type: iceberg.PrimitiveTypes.String, Doc: "<&>"},
		{ID: 18, Name: "st", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 19, Name: "x", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		}}},
		{ID: 20, Name: "l", Type: &iceberg.ListType{ElementID: 21, Element: iceberg.PrimitiveTypes.String}},
		{ID: 22, Name: "m", Type: &iceberg.MapType{KeyID: 23, KeyType: iceberg.PrimitiveTypes.String, ValueID: 24, ValueType: iceberg.PrimitiveTypes.Int64}},
	}
	return iceberg.NewSchemaWithIdentifiers(3, []int{1, 3}, fields...)
}

// primitiveSchema is wideSchema's top-level primitive fields: a schema a
// create template is made of.
func primitiveSchema(t testing.TB) *iceberg.Schema {
	t.Helper()
	var fields []iceberg.NestedField
	for _, f := range wideSchema(t).Fields() {
		if _, nested := f.Type.(iceberg.NestedType); !nested {
			fields = append(fields, f)
		}
	}
	return iceberg.NewSchemaWithIdentifiers(2, []int{1}, fields...)
}

// TestCreateTemplateIsNewMetadata: whatever a sequence of creates asks
// for (locations that need escaping, other schemas, a schema its caller
// changes between creates, partitioning, sort orders, properties, other
// format versions), each new table's metadata is what iceberg-go's
// NewMetadata builds for it (with its UUID, at the time it was built), its
// file is exactly the bytes iceberg-go's MarshalJSON writes for it, and
// the creates that can be built from the template are.
func TestCreateTemplateIsNewMetadata(t *testing.T) {
	plain := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		iceberg.NestedField{ID: 3, Name: "payload", Type: iceberg.PrimitiveTypes.String},
	)
	plainAgain := iceberg.NewSchema(0, plain.Fields()...)
	changing := iceberg.NewSchema(0, plain.Fields()...)
	prim := primitiveSchema(t)
	spec := iceberg.NewPartitionSpec(
		iceberg.PartitionField{SourceIDs: []int{1}, FieldID: 1000, Name: "id_bucket", Transform: iceberg.BucketTransform{NumBuckets: 8}},
		iceberg.PartitionField{SourceIDs: []int{9}, FieldID: 1001, Name: "day<&>", Transform: iceberg.DayTransform{}},
	)
	order, err := table.NewSortOrder(1, []table.SortField{
		{SourceIDs: []int{1}, Transform: iceberg.IdentityTransform{}, Direction: table.SortDESC, NullOrder: table.NullsLast},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(change func(*icecatalog.CreateTableCfg)) icecatalog.CreateTableCfg {
		c := icecatalog.NewCreateTableCfg()
		if change != nil {
			change(&c)
		}
		return c
	}
	plainCfg := cfg(nil)
	const (
		hit   = "hit"   // filled from the template in place
		miss  = "miss"  // encoded by iceberg-go, and now the template
		other = "other" // encoded by iceberg-go, template unchanged
	)
	steps := []struct {
		name   string
		sc     *iceberg.Schema
		cfg    icecatalog.CreateTableCfg
		loc    string
		before func()
		want   string
	}{
		{"first", plain, plainCfg, "file:///w/ns/t0", nil, miss},
		{"second", plain, plainCfg, "file:///w/ns/t1", nil, hit},
		{"s3", plain, plainCfg, "s3://bucket/w/ns/t2", nil, hit},
		{"escaped location", plain, plainCfg, "file:///w/n%20s/t%3Cx%3E&é\u2028", nil, hit},
		{"html location", plain, plainCfg, "file:///w/ns/t&u<v>", nil, hit},
		{"equal schema", plainAgain, plainCfg, "file:///w/ns/t3", nil, hit},
		{"primitive schema", prim, plainCfg, "file:///w/ns/t4", nil, miss},
		{"primitive again", prim, plainCfg, "file:///w/ns/t5", nil, hit},
		{"changing", changing, plainCfg, "file:///w/ns/t6", nil, miss},
		{"identifier added", changing, plainCfg, "file:///w/ns/t7", func() { changing.IdentifierFieldIDs = []int{1} }, miss},
		{"id changed", changing, plainCfg, "file:///w/ns/t8", func() { changing.ID = 7 }, miss},
		{"nested", wideSchema(t), plainCfg, "file:///w/ns/t9", nil, other},
		{"partitioned", prim, cfg(func(c *icecatalog.CreateTableCfg) { c.PartitionSpec = &spec }), "file:///w/ns/t10", nil, other},
		{"unpartitioned", changing, cfg(func(c *icecatalog.CreateTableCfg) { c.PartitionSpec = iceberg.UnpartitionedSpec }), "file:///w/ns/t11", nil, hit},
		{"sorted", prim, cfg(func(c *icecatalog.CreateTableCfg) { c.SortOrder = order }), "file:///w/ns/t12", nil, other},
		{"properties", changing, cfg(func(c *icecatalog.CreateTableCfg) { c.Properties = iceberg.Properties{"k": "<v&>"} }), "file:///w/ns/t13", nil, other},
		{"format 1", changing, cfg(func(c *icecatalog.CreateTableCfg) { c.Properties = iceberg.Properties{"format-version": "1"} }), "file:///w/ns/t14", nil, other},
		{"format 3", changing, cfg(func(c *icecatalog.CreateTableCfg) { c.Properties = iceberg.Properties{"format-version": "3"} }), "file:///w/ns/t15", nil, other},
		{"after the others", changing, plainCfg, "file:///w/ns/t16", nil, hit},
	}
	var ts createTemplates
	uuids := map[string]string{}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		before, hits := ts.last.Load(), ts.hits.Load()
		from := time.Now().UnixMilli()
		meta, got, err := ts.build(st.sc, st.cfg, st.loc)
		to := time.Now().UnixMilli()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		checkNewMetadata(t, st.name, st.sc, st.cfg, st.loc, meta, got)
		if prev, ok := uuids[meta.TableUUID().String()]; ok {
			t.Fatalf("%s: the table's UUID is %s's", st.name, prev)
		}
		uuids[meta.TableUUID().String()] = st.name
		if at := meta.LastUpdatedMillis(); at < from || at > to {
			t.Fatalf("%s: last updated at %d, built between %d and %d", st.name, at, from, to)
		}
		took := other
		switch {
		case ts.hits.Load() == hits+1:
			took = hit
		case ts.last.Load() != before:
			took = miss
		}
		if took != st.want {
			t.Fatalf("%s: the template was a %s, want a %s", st.name, took, st.want)
		}
	}
}

// checkNewMetadata fails t unless raw is meta's MarshalJSON and meta is
// NewMetadata's for the create (sc, cfg, loc) with meta's UUID and time.
func checkNewMetadata(t *testing.T, name string, sc *iceberg.Schema, cfg icecatalog.CreateTableCfg, loc string, meta table.Metadata, raw []byte) {
	t.Helper()
	own, err := meta.(json.Marshaler).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, own) {
		t.Fatalf("%s: the file's bytes are not its metadata's\n got %s\nwant %s", name, raw, own)
	}
	ref, err := table.NewMetadataWithUUID(sc, cfg.PartitionSpec, cfg.SortOrder, loc, cfg.Properties, meta.TableUUID())
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.(json.Marshaler).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.Replace(want, fmt.Appendf(nil, `"last-updated-ms":%d,`, ref.LastUpdatedMillis()),
		fmt.Appendf(nil, `"last-updated-ms":%d,`, meta.LastUpdatedMillis()), 1)
	if !bytes.Equal(raw, want) {
		t.Fatalf("%s: not NewMetadata's\n got %s\nwant %s", name, raw, want)
	}
}

// FuzzCreateTemplate: whatever names, docs and locations creates carry,
// the first create of a schema and the ones filled from its template
// write iceberg-go's bytes.
func FuzzCreateTemplate(f *testing.F) {
	f.Add("id", "doc", "file:///w/ns/t", "file:///w/ns/u")
	f.Add("é<&>", "\x00\u2028\xff", "s3://b/w/n%2Fs/t", "file:///w/a&b/\"c\"")
	f.Fuzz(func(t *testing.T, name, doc, loc1, loc2 string) {
		sc := iceberg.NewSchema(0,
			iceberg.NestedField{ID: 1, Name: name, Type: iceberg.PrimitiveTypes.Int64, Required: true, Doc: doc},
			iceberg.NestedField{ID: 2, Name: name + "2", Type: iceberg.PrimitiveTypes.String, Doc: doc})
		var ts createTemplates
		cfg := icecatalog.NewCreateTableCfg()
		for _, loc := range []string{loc1, loc2, loc1} {
			if _, err := table.NewMetadata(sc, cfg.PartitionSpec, cfg.SortOrder, loc, cfg.Properties); err != nil {
				return // iceberg-go refuses it: nothing to build
			}
			meta, raw, err := ts.build(sc, cfg, loc)
			if err != nil {
				t.Fatal(err)
			}
			checkNewMetadata(t, loc, sc, cfg, loc, meta, raw)
		}
	})
}

// BenchmarkNewTableMetadata builds a create's metadata and its file's
// bytes for katbench's three-column schema, by iceberg-go (NewMetadata,
// then MarshalJSON: "iceberg") and from the create template ("template").
func BenchmarkNewTableMetadata(b *testing.B) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
		iceberg.NestedField{ID: 3, Name: "payload", Type: iceberg.PrimitiveTypes.String},
	)
	cfg := icecatalog.NewCreateTableCfg()
	const loc = "file:///warehouse/ns/t"
	b.Run("iceberg", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			meta, err := table.NewMetadata(sc, cfg.PartitionSpec, cfg.SortOrder, loc, cfg.Properties)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := encodeMetadata(meta); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("template", func(b *testing.B) {
		var ts createTemplates
		if _, _, err := ts.build(sc, cfg, loc); err != nil { // makes the template
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ts.build(sc, cfg, loc); err != nil {
				b.Fatal(err)
			}
		}
		if got := ts.hits.Load(); got != int64(b.N) {
			b.Fatalf("%d of %d creates built from the template", got, b.N)
		}
	})
}
