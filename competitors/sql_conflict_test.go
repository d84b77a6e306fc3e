package competitors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestSQLRefusalIsNotErrCommitFailed pins what docs/verify.md reports of
// iceberg-go v0.7.0's SQL catalog: a commit whose assert-ref-snapshot-id no
// longer holds is refused with the requirement's own error, which does not
// wrap table.ErrCommitFailed, so iceberg-go's Transaction.Commit does not
// retry it (it retries ErrCommitFailed only). Two first commits, each
// asserting that main does not exist yet, as scripts/repro/first-commit.sh
// sends them to a REST catalog. If this test fails after an iceberg-go
// upgrade, the finding in docs/verify.md is out of date.
func TestSQLRefusalIsNotErrCommitFailed(t *testing.T) {
	ctx := context.Background()
	f, err := Lookup("sql")
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.New(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("start sql: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	cat := c.Catalog()
	if err := cat.CreateNamespace(ctx, table.Identifier{"repro"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	id := table.Identifier{"repro", "t"}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	tbl, err := cat.CreateTable(ctx, id, schema)
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	commit := func(snapshot int64) error {
		schemaID := 0
		_, _, err := cat.CommitTable(ctx, id,
			[]table.Requirement{table.AssertRefSnapshotID(table.MainBranch, nil)},
			[]table.Update{
				table.NewAddSnapshotUpdate(&table.Snapshot{SnapshotID: snapshot, SequenceNumber: 1, TimestampMs: time.Now().UnixMilli(),
					ManifestList: tbl.Location() + "/metadata/never-written.avro", SchemaID: &schemaID,
					Summary: &table.Summary{Operation: table.OpAppend}}),
				table.NewSetSnapshotRefUpdate(table.MainBranch, snapshot, table.BranchRef, -1, -1, -1),
			})
		return err
	}
	if err := commit(1001); err != nil {
		t.Fatalf("first commit: %v", err)
	}
	err = commit(1002)
	if err == nil {
		t.Fatal("second first commit acknowledged although main exists: the SQL catalog lost an update")
	}
	if errors.Is(err, table.ErrCommitFailed) || !strings.HasPrefix(err.Error(), "requirement failed: ") {
		t.Errorf("second commit refused with %q (ErrCommitFailed: %v); docs/verify.md says: a plain \"requirement failed: …\" error that is not ErrCommitFailed",
			err, errors.Is(err, table.ErrCommitFailed))
	}
	loaded, err := cat.LoadTable(ctx, id)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if s := loaded.CurrentSnapshot(); s == nil || s.SnapshotID != 1001 {
		t.Errorf("main's head = %v, want snapshot 1001", s)
	}
}
