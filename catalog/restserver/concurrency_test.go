package restserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String},
)

// TestConcurrentCommits has 8 REST clients, each on its own connection
// pool, commit property updates to one table at once. Every commit that
// succeeded must be in the final metadata (no lost update) and every one
// that failed must have failed with a commit conflict (409).
func TestConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	_, base := startServer(t, newEmbedded(t), Options{})
	setup := newClient(t, base)
	ident := table.Identifier{"db", "t"}
	if err := setup.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := setup.CreateTable(ctx, ident, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	uuid := tbl.Metadata().TableUUID()

	const clients, rounds = 8, 6
	var (
		mu        sync.Mutex
		won       []string
		conflicts int
		wg        sync.WaitGroup
	)
	for c := range clients {
		cl := newClient(t, base)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				key := fmt.Sprintf("c%d.r%d", c, r)
				_, _, err := cl.CommitTable(ctx, ident,
					[]table.Requirement{table.AssertTableUUID(uuid)},
					[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{key: "v"})})
				mu.Lock()
				switch {
				case err == nil:
					won = append(won, key)
				case errors.Is(err, table.ErrCommitFailed):
					conflicts++
				default:
					t.Errorf("commit %s: unexpected error %v", key, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	if len(won)+conflicts != clients*rounds {
		t.Fatalf("%d won + %d conflicts != %d commits", len(won), conflicts, clients*rounds)
	}
	if len(won) == 0 {
		t.Fatal("no commit succeeded")
	}
	final, err := setup.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	props := final.Metadata().Properties()
	for _, k := range won {
		if props[k] != "v" {
			t.Errorf("lost update: successful commit %s is not in the final metadata", k)
		}
	}
	t.Logf("%d commits won, %d got 409", len(won), conflicts)
}

// TestCommitRequirementFails checks a stale requirement is a 409
// CommitFailedException and changes nothing.
func TestCommitRequirementFails(t *testing.T) {
	ctx := context.Background()
	_, base := startServer(t, newEmbedded(t), Options{})
	cl := newClient(t, base)
	ident := table.Identifier{"db", "t"}
	if err := cl.CreateNamespace(ctx, table.Identifier{"db"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, err := cl.CreateTable(ctx, ident, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = cl.CommitTable(ctx, ident,
		[]table.Requirement{table.AssertCurrentSchemaID(99)},
		[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})})
	if !errors.Is(err, table.ErrCommitFailed) {
		t.Fatalf("stale requirement: %v, want ErrCommitFailed", err)
	}
	after, err := cl.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if after.MetadataLocation() != tbl.MetadataLocation() {
		t.Fatalf("failed commit moved metadata %s → %s", tbl.MetadataLocation(), after.MetadataLocation())
	}
	if _, ok := after.Metadata().Properties()["k"]; ok {
		t.Fatal("failed commit wrote its property")
	}

	// A commit whose requirement holds returns the new metadata and location.
	meta, loc, err := cl.CommitTable(ctx, ident,
		[]table.Requirement{table.AssertCurrentSchemaID(after.Metadata().CurrentSchema().ID)},
		[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})})
	if err != nil {
		t.Fatalf("valid commit: %v", err)
	}
	if meta.Properties()["k"] != "v" || loc == after.MetadataLocation() {
		t.Fatalf("commit response: props %v, location %s (was %s)", meta.Properties(), loc, after.MetadataLocation())
	}
	reloaded, err := cl.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	if reloaded.MetadataLocation() != loc || !reloaded.Metadata().Equals(meta) {
		t.Fatalf("reloaded %s differs from the commit response %s", reloaded.MetadataLocation(), loc)
	}
}
