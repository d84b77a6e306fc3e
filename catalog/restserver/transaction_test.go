package restserver

import (
	"context"
	"net/http"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestTransactionCommitIsAtomic commits changes to two tables in one
// request: with a stale requirement on the second, neither table changes
// (409); with both requirements current, both change (204).
func TestTransactionCommitIsAtomic(t *testing.T) {
	ctx := context.Background()
	cat := newEmbedded(t)
	_, base := startServer(t, cat, Options{})
	mustDo(t, 200, "POST", base+"/v1/namespaces", `{"namespace":["db"]}`)
	for _, n := range []string{"a", "b"} {
		mustDo(t, 200, "POST", base+"/v1/namespaces/db/tables", `{"name":"`+n+`","schema":`+okSchema+`}`)
	}
	before := snapshot(t, cat)
	change := func(name, schemaID string) string {
		return `{"identifier":{"namespace":["db"],"name":"` + name + `"},"requirements":[{"type":"assert-current-schema-id","current-schema-id":` + schemaID + `}],` +
			`"updates":[{"action":"set-properties","updates":{"txn":"yes"}}]}`
	}
	code, body, _ := do(t, "POST", base+"/v1/transactions/commit", "", `{"table-changes":[`+change("a", "0")+`,`+change("b", "7")+`]}`)
	if code != http.StatusConflict {
		t.Fatalf("stale transaction: %d %s, want 409", code, body)
	}
	if after := snapshot(t, cat); after.Metadata["db.a"] != before.Metadata["db.a"] || after.Metadata["db.b"] != before.Metadata["db.b"] {
		t.Fatal("a failed transaction changed a table")
	}
	mustDo(t, 204, "POST", base+"/v1/transactions/commit", `{"table-changes":[`+change("a", "0")+`,`+change("b", "0")+`]}`)
	for _, n := range []string{"a", "b"} {
		tbl, err := cat.LoadTable(ctx, table.Identifier{"db", n})
		if err != nil || tbl.Properties()["txn"] != "yes" {
			t.Errorf("table %s not changed by the transaction: %v", n, err)
		}
	}
	mustDo(t, 400, "POST", base+"/v1/transactions/commit", `{"table-changes":[{"requirements":[],"updates":[]}]}`)
	mustDo(t, 404, "POST", base+"/v1/transactions/commit", `{"table-changes":[`+change("nope", "0")+`]}`)
}
