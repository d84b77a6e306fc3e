package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// appendSnapshot returns the updates that add snapshot id on top of meta's
// main branch, and the requirement that main has not moved since meta.
func appendSnapshot(meta table.Metadata, id int64, props iceberg.Properties) ([]table.Requirement, []table.Update) {
	var parent *int64
	if s := meta.CurrentSnapshot(); s != nil {
		p := s.SnapshotID
		parent = &p
	}
	schemaID := meta.CurrentSchema().ID
	snap := table.Snapshot{
		SnapshotID:       id,
		ParentSnapshotID: parent,
		SequenceNumber:   meta.LastSequenceNumber() + 1,
		TimestampMs:      time.Now().UnixMilli(),
		ManifestList:     fmt.Sprintf("%s/metadata/snap-%d.avro", meta.Location(), id),
		Summary:          &table.Summary{Operation: table.OpAppend},
		SchemaID:         &schemaID,
	}
	reqs := []table.Requirement{
		table.AssertTableUUID(meta.TableUUID()),
		table.AssertRefSnapshotID("main", parent),
	}
	updates := []table.Update{
		table.NewAddSnapshotUpdate(&snap),
		table.NewSetSnapshotRefUpdate("main", id, table.BranchRef, -1, -1, -1),
	}
	if props != nil {
		updates = append(updates, table.NewSetPropertiesUpdate(props))
	}
	return reqs, updates
}

func metadataFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	dir := filepath.Join(strings.TrimPrefix(tbl.Location(), "file://"), "metadata")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestConcurrentCommitsFromSameBase starts two commits from the same base
// metadata at once, many times over: exactly one must win, the other must
// fail with table.ErrCommitFailed, and the winner's change must be the one
// stored, with no orphan metadata file left by the loser.
func TestConcurrentCommitsFromSameBase(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	for round := range 25 {
		id := table.Identifier{"ns", "t" + strconv.Itoa(round)}
		tbl := mustTable(t, c, id...)
		base := tbl.Metadata()

		var (
			start = make(chan struct{})
			wg    sync.WaitGroup
			errs  [2]error
			locs  [2]string
		)
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				reqs, ups := appendSnapshot(base, int64(100+g), iceberg.Properties{"writer": strconv.Itoa(g)})
				<-start
				_, locs[g], errs[g] = c.CommitTable(ctx, id, reqs, ups)
			}()
		}
		close(start)
		wg.Wait()

		winners := 0
		winner := -1
		for g, err := range errs {
			switch {
			case err == nil:
				winners++
				winner = g
			case !errors.Is(err, table.ErrCommitFailed):
				t.Fatalf("round %d: loser error %v does not wrap table.ErrCommitFailed", round, err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners (errors %v)", round, winners, errs)
		}
		now, err := c.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if now.MetadataLocation() != locs[winner] || now.Properties()["writer"] != strconv.Itoa(winner) ||
			now.CurrentSnapshot() == nil || now.CurrentSnapshot().SnapshotID != int64(100+winner) {
			t.Fatalf("round %d: stored state is not the winner's: %s %v", round, now.MetadataLocation(), now.Properties())
		}
		if n := len(metadataFiles(t, now)); n != 2 {
			t.Errorf("round %d: %d metadata files, want 2 (create + winner)", round, n)
		}
	}
}

// TestNoLostUpdates has several goroutines each append snapshots with
// optimistic retries. Every acknowledged commit must be in the final
// snapshot chain, and the counter property must equal the number of commits.
func TestNoLostUpdates(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	id := table.Identifier{"ns", "counter"}
	mustTable(t, c, id...)

	const workers, perWorker = 4, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[int64]bool{}
	conflicts := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				snapID := int64(1000*(w+1) + i)
				for {
					meta, err := c.ResolveMetadata(ctx, id)
					if err != nil {
						t.Error(err)
						return
					}
					n, _ := strconv.Atoi(meta.Properties()["counter"])
					reqs, ups := appendSnapshot(meta, snapID, iceberg.Properties{"counter": strconv.Itoa(n + 1)})
					_, _, err = c.CommitTable(ctx, id, reqs, ups)
					if errors.Is(err, table.ErrCommitFailed) {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					acked[snapID] = true
					mu.Unlock()
					break
				}
			}
		}()
	}
	wg.Wait()

	meta, err := c.ResolveMetadata(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := meta.Properties()["counter"]; got != strconv.Itoa(workers*perWorker) {
		t.Errorf("counter = %s, want %d (conflicts seen: %d)", got, workers*perWorker, conflicts)
	}
	chain := 0
	for s := meta.CurrentSnapshot(); s != nil; {
		if !acked[s.SnapshotID] {
			t.Errorf("snapshot %d in chain was never acknowledged", s.SnapshotID)
		}
		delete(acked, s.SnapshotID)
		chain++
		if s.ParentSnapshotID == nil {
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	if len(acked) != 0 || chain != workers*perWorker {
		t.Errorf("chain has %d snapshots; acknowledged but missing: %v", chain, acked)
	}
}

func TestFailedRequirementChangesNothing(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	id := table.Identifier{"ns", "t"}
	tbl := mustTable(t, c, id...)
	files := metadataFiles(t, tbl)

	bad := [][]table.Requirement{
		{table.AssertCurrentSchemaID(7)},
		{table.AssertLastAssignedFieldID(99)},
		{table.AssertTableUUID([16]byte{1})},
		{table.AssertCreate()},
	}
	for _, reqs := range bad {
		_, _, err := c.CommitTable(ctx, id, reqs, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"x": "y"})})
		if !errors.Is(err, table.ErrCommitFailed) {
			t.Errorf("%s: %v; want ErrCommitFailed", reqs[0].GetType(), err)
		}
	}
	now, _ := c.LoadTable(ctx, id)
	if now.MetadataLocation() != tbl.MetadataLocation() || now.Properties()["x"] != "" {
		t.Error("a failed commit changed the table")
	}
	if got := metadataFiles(t, now); len(got) != len(files) {
		t.Errorf("failed commits left files: %v", got)
	}

	// A commit that changes nothing writes nothing.
	m, loc, err := c.CommitTable(ctx, id, nil, nil)
	if err != nil || loc != tbl.MetadataLocation() || !m.Equals(tbl.Metadata()) {
		t.Errorf("empty commit = %s, %v", loc, err)
	}
	if got := metadataFiles(t, now); len(got) != len(files) {
		t.Errorf("empty commit wrote files: %v", got)
	}
	if _, _, err := c.CommitTable(ctx, table.Identifier{"ns", "missing"}, nil,
		[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"x": "y"})}); !errors.Is(err, icecatalog.ErrNoSuchTable) {
		t.Errorf("commit to missing table: %v", err)
	}
}

// TestTransactionCommit drives CommitTable through iceberg-go's own
// transaction API, as a library user would.
func TestTransactionCommit(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	tbl := mustTable(t, c, "ns", "t")
	txn := tbl.NewTransaction()
	if err := txn.SetProperties(iceberg.Properties{"via": "txn"}); err != nil {
		t.Fatal(err)
	}
	updated, err := txn.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if updated.Properties()["via"] != "txn" {
		t.Errorf("transaction result = %v", updated.Properties())
	}
	again, _ := c.LoadTable(ctx, table.Identifier{"ns", "t"})
	if again.Properties()["via"] != "txn" || again.MetadataLocation() != updated.MetadataLocation() {
		t.Errorf("transaction not stored: %v", again.Properties())
	}
}

// TestCreateViaCommit covers the REST stage-create path: a commit with
// AssertCreate to a missing table creates it.
func TestCreateViaCommit(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	id := table.Identifier{"ns", "staged"}
	loc := c.Warehouse() + "/staged-here"
	meta, mloc, err := c.CommitTable(ctx, id, []table.Requirement{table.AssertCreate()}, []table.Update{
		table.NewSetLocationUpdate(loc),
		table.NewSetPropertiesUpdate(iceberg.Properties{"stage": "yes"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Location() != loc || !strings.HasPrefix(mloc, loc+"/metadata/00000-") {
		t.Errorf("created at %s / %s", meta.Location(), mloc)
	}
	if ok, _ := c.CheckTableExists(ctx, id); !ok {
		t.Error("created table does not exist")
	}
	if _, _, err := c.CommitTable(ctx, table.Identifier{"nope", "x"}, []table.Requirement{table.AssertCreate()},
		[]table.Update{table.NewSetLocationUpdate(loc + "2")}); !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
		t.Errorf("create via commit in missing namespace: %v", err)
	}
}

// TestInvalidUpdatesAreTheClientsError: updates the metadata rules refuse (a
// snapshot older than the table's last update) are the client's invalid
// input, not a commit whose outcome is unknown, and change nothing.
func TestInvalidUpdatesAreTheClientsError(t *testing.T) {
	ctx := context.Background()
	c, _ := openTemp(t)
	mustNS(t, c, "ns")
	id := table.Identifier{"ns", "old"}
	tbl := mustTable(t, c, id...)
	meta := tbl.Metadata()
	schemaID := meta.CurrentSchema().ID
	snap := table.Snapshot{
		SnapshotID:     7,
		SequenceNumber: meta.LastSequenceNumber() + 1,
		TimestampMs:    meta.LastUpdatedMillis() - 10*60_000, // beyond the one minute of clock skew allowed
		ManifestList:   meta.Location() + "/metadata/snap-7.avro",
		Summary:        &table.Summary{Operation: table.OpAppend},
		SchemaID:       &schemaID,
	}
	_, _, err := c.CommitTable(ctx, id, []table.Requirement{table.AssertRefSnapshotID("main", nil)},
		[]table.Update{table.NewAddSnapshotUpdate(&snap), table.NewSetSnapshotRefUpdate("main", 7, table.BranchRef, -1, -1, -1)})
	if !errors.Is(err, iceberg.ErrInvalidArgument) || errors.Is(err, table.ErrCommitFailed) {
		t.Fatalf("commit of a snapshot older than the table: %v; want ErrInvalidArgument", err)
	}
	now, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if now.MetadataLocation() != tbl.MetadataLocation() || now.CurrentSnapshot() != nil {
		t.Error("a refused commit changed the table")
	}
}
