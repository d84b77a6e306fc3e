package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// newTableMetadata builds a new table's metadata at loc from a create's
// schema and options, and its JSON (see createTemplates).
func (c *Catalog) newTableMetadata(sc *iceberg.Schema, cfg icecatalog.CreateTableCfg, loc string) (table.Metadata, []byte, error) {
	return c.createJSON.build(sc, cfg, loc)
}

// createTemplates builds new tables' metadata, and their files' bytes,
// from the previous create's: creates with an equal schema, no
// partitioning, no sort order and no properties build metadata that
// differs only in the table's UUID, its location and the time. So such a
// create's metadata is the last one's with those three set (iceberg-go's
// MetadataBuilderFromBase) and its file is the last one's bytes with those
// three replaced. Any other create is built by iceberg-go's NewMetadata
// and encoded by its MarshalJSON and, when it is of that kind, becomes the
// template. Both the metadata and the bytes are what NewMetadata and
// MarshalJSON give (TestCreateTemplateIsNewMetadata); what the template
// saves is their CPU, most of a create's own (docs/writes.md). Safe for
// concurrent use.
type createTemplates struct {
	last atomic.Pointer[createTemplate]
	hits atomic.Int64 // creates built from the template
}

// createTemplate is one create's metadata, and its file cut around the
// parts that change from create to create.
type createTemplate struct {
	schema *iceberg.Schema // a copy of the create's schema
	meta   table.Metadata  // the create's metadata
	suffix []byte          // after the last-updated time (before it: templatePrefix, the UUID, the location)
}

// templatePrefix is how iceberg-go's encoding of format version 2
// metadata begins, up to the UUID.
const templatePrefix = `{"last-sequence-number":0,"format-version":2,"table-uuid":"`

// build returns a new table's metadata for sc, cfg and loc, and its JSON.
func (ts *createTemplates) build(sc *iceberg.Schema, cfg icecatalog.CreateTableCfg, loc string) (table.Metadata, []byte, error) {
	fits := templatable(sc, cfg)
	if t := ts.last.Load(); fits && t != nil && t.schema.ID == sc.ID && t.schema.Equals(sc) {
		if meta, err := t.derive(loc); err == nil {
			ts.hits.Add(1)
			return meta, t.fill(meta), nil
		}
	}
	meta, err := table.NewMetadata(sc, cfg.PartitionSpec, cfg.SortOrder, loc, cfg.Properties)
	if err != nil {
		return nil, nil, err
	}
	raw, err := encodeMetadata(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("encode metadata: %w", err)
	}
	if fits && meta.Version() == 2 {
		if t, ok := newCreateTemplate(sc, meta, raw); ok {
			ts.last.Store(t)
		}
	}
	return meta, raw, nil
}

// derive is the template's metadata with a new UUID, loc and the time now.
func (t *createTemplate) derive(loc string) (table.Metadata, error) {
	b, err := table.MetadataBuilderFromBase(t.meta, "")
	if err != nil {
		return nil, err
	}
	if err := b.SetUUID(uuid.New()); err != nil {
		return nil, err
	}
	if err := b.SetLoc(loc); err != nil {
		return nil, err
	}
	return b.Build()
}

// templatable reports whether a create's metadata depends on nothing but
// its schema, location, UUID and time: no partitioning, no sort order, no
// properties, and a schema of top-level primitive fields without defaults
// (values that a copy of the schema holds, not pointers its caller could
// change).
func templatable(sc *iceberg.Schema, cfg icecatalog.CreateTableCfg) bool {
	if len(cfg.Properties) != 0 || cfg.SortOrder.Len() != 0 || cfg.SortOrder.OrderID() != 0 ||
		(cfg.PartitionSpec != nil && (cfg.PartitionSpec.NumFields() != 0 || cfg.PartitionSpec.ID() != 0)) {
		return false
	}
	for i := range sc.NumFields() {
		f := sc.Field(i)
		if _, nested := f.Type.(iceberg.NestedType); nested || f.Type == nil || f.InitialDefault != nil || f.WriteDefault != nil {
			return false
		}
	}
	return true
}

// newCreateTemplate cuts raw, meta's encoding, around its UUID, location
// and time; false when raw is not laid out as expected.
func newCreateTemplate(sc *iceberg.Schema, meta table.Metadata, raw []byte) (*createTemplate, bool) {
	mid := appendVariable(nil, meta)
	if !bytes.HasPrefix(raw, []byte(templatePrefix)) || !bytes.HasPrefix(raw[len(templatePrefix):], mid) {
		return nil, false
	}
	suffix := raw[len(templatePrefix)+len(mid):]
	if !bytes.HasPrefix(suffix, []byte(`,"last-column-id":`)) {
		return nil, false
	}
	return &createTemplate{
		meta:   meta,
		schema: iceberg.NewSchemaWithIdentifiers(sc.ID, slices.Clone(sc.IdentifierFieldIDs), sc.Fields()...),
		suffix: slices.Clone(suffix),
	}, true
}

// fill returns the template with meta's UUID, location and time.
func (t *createTemplate) fill(meta table.Metadata) []byte {
	b := make([]byte, 0, len(templatePrefix)+len(t.suffix)+len(meta.Location())+96)
	b = append(b, templatePrefix...)
	b = appendVariable(b, meta)
	return append(b, t.suffix...)
}

// appendVariable appends what follows templatePrefix up to the
// last-column-id, as encoding/json writes it.
func appendVariable(b []byte, meta table.Metadata) []byte {
	b = append(b, meta.TableUUID().String()...)
	b = append(b, `","location":`...)
	b = AppendJSONString(b, meta.Location())
	b = append(b, `,"last-updated-ms":`...)
	return strconv.AppendInt(b, meta.LastUpdatedMillis(), 10)
}

// AppendJSONString appends s as encoding/json writes a string: quoted,
// with HTML's <, > and & escaped. Plain printable ASCII (every location
// katbench writes) is copied; a string with any byte that needs escaping,
// or that is not ASCII, is left to json.Marshal itself.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s) // a string always encodes
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
