package grpcfront_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
)

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzCommitArgs: whatever bytes a client sends as requirements and updates,
// decoding returns values or an InvalidArgument-class error, never panics.
func FuzzCommitArgs(f *testing.F) {
	f.Add(mustJSON(f, []table.Requirement{table.AssertCurrentSchemaID(0)}),
		mustJSON(f, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"a": "b"})}))
	f.Add([]byte(`[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}]`), []byte(`[{"action":"remove-properties","removals":["x"]}]`))
	f.Add([]byte(`null`), []byte(`[{"action":"nope"}]`))
	f.Add([]byte(`{`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, reqs, ups []byte) {
		r, u, err := grpcfront.CommitArgs(&catalogv1.CommitTableRequest{RequirementsJson: reqs, UpdatesJson: ups})
		if err != nil {
			if !errors.Is(err, iceberg.ErrInvalidArgument) {
				t.Fatalf("decode error %v does not wrap ErrInvalidArgument", err)
			}
			return
		}
		for _, x := range r {
			if x == nil {
				t.Fatal("nil requirement decoded")
			}
		}
		for _, x := range u {
			if x == nil {
				t.Fatal("nil update decoded")
			}
		}
	})
}

// FuzzCreateTableArgs: the same for a CreateTable request's JSON parts.
func FuzzCreateTableArgs(f *testing.F) {
	f.Add(mustJSON(f, testSchema), []byte(`{"spec-id":0,"fields":[]}`), []byte(`{"order-id":0,"fields":[]}`), []byte(nil))
	f.Add([]byte(`{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"x","type":"long","required":true}]}`),
		[]byte(`{"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"name":"b","transform":"bucket[4]"}]}`),
		[]byte(`{"order-id":1,"fields":[{"source-id":1,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}`),
		[]byte(`[{"action":"set-properties","updates":{"k":"v"}}]`))
	f.Add([]byte(`{}`), []byte(`[`), []byte(`{"order-id":1}`), []byte(`[{}]`))
	f.Fuzz(func(t *testing.T, schema, spec, order, staged []byte) {
		_, sc, err := grpcfront.CreateTableArgs(&catalogv1.CreateTableRequest{
			SchemaJson: schema, PartitionSpecJson: spec, SortOrderJson: order, StagedUpdatesJson: staged,
		})
		if err != nil {
			if !errors.Is(err, iceberg.ErrInvalidArgument) {
				t.Fatalf("decode error %v does not wrap ErrInvalidArgument", err)
			}
			return
		}
		if sc == nil {
			t.Fatal("no error and no schema")
		}
	})
}
