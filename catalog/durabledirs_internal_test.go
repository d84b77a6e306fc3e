package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestCreateNewPlansOnlyWhatIsMissing creates files through a dirTracker:
// the first file's plan creates and syncs every missing directory up to
// the first one that exists; once that plan is released durable, a second
// file in the same directory syncs only its own directory; and after the
// directories were removed behind the tracker's back, a third file
// recreates them and syncs their parents again instead of trusting what
// the tracker knew.
func TestCreateNewPlansOnlyWhatIsMissing(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "a", "b")
	var tr dirTracker
	create := func(name string) *dirPlan {
		t.Helper()
		f, plan, err := tr.createNew(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(b, name)); err != nil {
			t.Fatal(err)
		}
		return plan
	}
	first := create("f1")
	if want := []string{b, a, base}; !slices.Equal(first.sync, want) {
		t.Fatalf("first plan syncs %q, want %q", first.sync, want)
	}
	if want := []string{b, a}; !slices.Equal(first.created, want) {
		t.Fatalf("first plan created %q, want %q", first.created, want)
	}
	// Before the first plan is durable its directories are pending: a
	// second writer syncs their parents too.
	pending := create("f2")
	if want := []string{b, a, base}; !slices.Equal(pending.sync, want) {
		t.Fatalf("plan beside a pending one syncs %q, want %q", pending.sync, want)
	}
	pending.release(true)
	first.release(true)
	second := create("f3")
	if want := []string{b}; !slices.Equal(second.sync, want) {
		t.Fatalf("plan in a durable directory syncs %q, want %q", second.sync, want)
	}
	second.release(true)

	if err := os.RemoveAll(a); err != nil {
		t.Fatal(err)
	}
	third := create("f4")
	if want := []string{b, a, base}; !slices.Equal(third.sync, want) {
		t.Fatalf("plan after the directories were removed syncs %q, want %q", third.sync, want)
	}
	third.release(true)
}

// TestEncodeMetadataMatchesMarshal: the bytes a metadata file gets are
// json.Marshal's, for new metadata and for metadata after a commit.
func TestEncodeMetadataMatchesMarshal(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "note <&>", Type: iceberg.PrimitiveTypes.String})
	meta, err := table.NewMetadata(sc, iceberg.UnpartitionedSpec, table.UnsortedSortOrder, "file:///w/t", iceberg.Properties{"k": "<v&>"})
	if err != nil {
		t.Fatal(err)
	}
	next, err := table.UpdateTableMetadata(meta, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"n": "1"})}, "file:///w/t/metadata/00000-x.metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []table.Metadata{meta, next} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeMetadata(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("encodeMetadata:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
}
