package commitcheck_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/commitcheck"
)

// openEmbedded opens the real embedded catalog in dir.
func openEmbedded(t testing.TB, dir string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// storm runs a storm through cat and checks it through check.
func storm(t *testing.T, cat, check icecatalog.Catalog, writers, commits int) (commitcheck.Result, commitcheck.Report) {
	t.Helper()
	ctx := context.Background()
	s := commitcheck.Storm{Catalog: cat, Namespace: table.Identifier{"verify"}, Prefix: "s", Tables: 1,
		Writers: writers, Commits: commits, Retries: 50}
	if err := s.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	res := s.Run(ctx)
	rep, err := commitcheck.Check(ctx, check, s.Idents(), res.Log.Attempts())
	if err != nil {
		t.Fatal(err)
	}
	return res, rep
}

// only asserts that the report has anomalies of kind k alone (at least
// one) and returns them.
func only(t *testing.T, rep commitcheck.Report, k commitcheck.Kind) []commitcheck.Anomaly {
	t.Helper()
	var got []commitcheck.Anomaly
	for _, a := range rep.Anomalies {
		if a.Kind != k {
			t.Errorf("unexpected anomaly %s", a)
			continue
		}
		got = append(got, a)
	}
	if len(got) == 0 {
		t.Fatalf("no %s anomaly found; report %+v", k, rep.Counts)
	}
	return got
}

func TestEmbeddedUnderContentionHasNoAnomalies(t *testing.T) {
	cat := openEmbedded(t, t.TempDir())
	t.Cleanup(func() { cat.Close() })
	res, rep := storm(t, cat, cat, 16, 160)
	if rep.Errors() != 0 {
		t.Fatalf("anomalies on the embedded catalog: %v", rep.Anomalies)
	}
	if rep.Acked != 160 || rep.Refused != 0 || rep.Indeterminate != 0 {
		var errs []string
		for _, a := range res.Log.Attempts() {
			if a.Err != "" {
				errs = append(errs, a.Err)
			}
		}
		t.Fatalf("acked %d refused %d indeterminate %d of 160, want all acked; errors %v", rep.Acked, rep.Refused, rep.Indeterminate, errs[:min(3, len(errs))])
	}
	conflicts := 0
	for _, a := range res.Log.Attempts() {
		conflicts += a.Conflicts
		if a.Tries != a.Conflicts+1 {
			t.Errorf("attempt %s: %d tries, %d conflicts: every try but the last must be a conflict", a.Marker, a.Tries, a.Conflicts)
		}
	}
	t.Logf("16 writers, 160 commits: %d conflicts", conflicts)
}

// doubleCatalog wraps the real embedded catalog and misbehaves in
// CommitTable as misbehave says; everything else is the real catalog's.
type doubleCatalog struct {
	*catalog.Catalog
	mu        sync.Mutex
	n         int
	misbehave func(d *doubleCatalog, ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error)
}

func (d *doubleCatalog) LoadTable(ctx context.Context, id table.Identifier) (*table.Table, error) {
	tbl, err := d.Catalog.LoadTable(ctx, id)
	if err != nil {
		return nil, err
	}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), tbl.FS, d), nil
}

func (d *doubleCatalog) CommitTable(ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n++
	return d.misbehave(d, ctx, id, reqs, ups)
}

// isDataCommit tells a storm's commits from the setup's.
func isDataCommit(ups []table.Update) bool {
	for _, u := range ups {
		if u.Action() == table.UpdateAddSnapshot {
			return true
		}
	}
	return false
}

func TestCatchesDroppedAcknowledgedCommits(t *testing.T) {
	real := openEmbedded(t, t.TempDir())
	t.Cleanup(func() { real.Close() })
	dropped := 0
	d := &doubleCatalog{Catalog: real, misbehave: func(d *doubleCatalog, ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
		if isDataCommit(ups) && d.n%100 == 0 {
			dropped++
			tbl, err := real.LoadTable(ctx, id)
			if err != nil {
				return nil, "", err
			}
			return tbl.Metadata(), tbl.MetadataLocation(), nil // acknowledged, never applied
		}
		return real.CommitTable(ctx, id, reqs, ups)
	}}
	_, rep := storm(t, d, real, 1, 300)
	lost := only(t, rep, commitcheck.Lost)
	if len(lost) != dropped || dropped < 2 {
		t.Fatalf("%d lost reported, %d dropped", len(lost), dropped)
	}
	if !strings.Contains(lost[0].Found, "not among the") || lost[0].Marker == "" || lost[0].Table != "verify.s_t0" {
		t.Fatalf("evidence: %s", lost[0])
	}
}

func TestCatchesRetriedCommitAppliedTwice(t *testing.T) {
	real := openEmbedded(t, t.TempDir())
	t.Cleanup(func() { real.Close() })
	twice := 0
	d := &doubleCatalog{Catalog: real, misbehave: func(d *doubleCatalog, ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
		meta, loc, err := real.CommitTable(ctx, id, reqs, ups)
		if err != nil || !isDataCommit(ups) || d.n%10 != 0 {
			return meta, loc, err
		}
		// The server applies the same commit again, as if it had
		// received a retry of a commit whose answer was lost.
		twice++
		head := meta.CurrentSnapshot()
		dup := *head
		dup.SnapshotID = head.SnapshotID + 1_000_003
		dup.ParentSnapshotID = &head.SnapshotID
		dup.SequenceNumber = meta.LastSequenceNumber() + 1
		return real.CommitTable(ctx, id, []table.Requirement{table.AssertRefSnapshotID(table.MainBranch, &head.SnapshotID)},
			[]table.Update{table.NewAddSnapshotUpdate(&dup), table.NewSetSnapshotRefUpdate(table.MainBranch, dup.SnapshotID, table.BranchRef, -1, -1, -1)})
	}}
	_, rep := storm(t, d, real, 1, 50)
	dups := only(t, rep, commitcheck.Duplicated)
	if len(dups) != twice {
		t.Fatalf("%d duplicated reported, %d applied twice", len(dups), twice)
	}
	if !strings.Contains(dups[0].Found, "in 2 snapshots") {
		t.Fatalf("evidence: %s", dups[0])
	}
}

func TestCatchesForkedBranch(t *testing.T) {
	real := openEmbedded(t, t.TempDir())
	t.Cleanup(func() { real.Close() })
	var forkedAt int64
	d := &doubleCatalog{Catalog: real, misbehave: func(d *doubleCatalog, ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
		meta, loc, err := real.CommitTable(ctx, id, reqs, ups)
		if err != nil || !isDataCommit(ups) || d.n != 20 {
			return meta, loc, err
		}
		// A second writer's snapshot lands on the previous head,
		// moving the branch off the snapshot just acknowledged.
		head := meta.CurrentSnapshot()
		sib := *head
		sib.SnapshotID = head.SnapshotID + 7_000_001
		sib.SequenceNumber = meta.LastSequenceNumber() + 1
		sib.Summary = &table.Summary{Operation: table.OpAppend}
		forkedAt = sib.SnapshotID
		if _, _, ferr := real.CommitTable(ctx, id, nil,
			[]table.Update{table.NewAddSnapshotUpdate(&sib), table.NewSetSnapshotRefUpdate(table.MainBranch, sib.SnapshotID, table.BranchRef, -1, -1, -1)}); ferr != nil {
			return nil, "", ferr
		}
		return meta, loc, nil
	}}
	_, rep := storm(t, d, real, 1, 40)
	forks := only(t, rep, commitcheck.Forked)
	if !strings.Contains(forks[0].Expected, fmt.Sprint(forkedAt)) {
		t.Fatalf("evidence names snapshot %d? %s", forkedAt, forks[0])
	}
}

func TestCatchesAcknowledgedBeforeDurableLostOnKill(t *testing.T) {
	dir := t.TempDir()
	real := openEmbedded(t, dir)
	// Metadata files written since the last durable point: a kill -9 of
	// a server that acknowledges before its metadata file is durable
	// loses them.
	var volatile []string
	d := &doubleCatalog{Catalog: real, misbehave: func(d *doubleCatalog, ctx context.Context, id table.Identifier, reqs []table.Requirement, ups []table.Update) (table.Metadata, string, error) {
		meta, loc, err := real.CommitTable(ctx, id, reqs, ups)
		if err == nil && isDataCommit(ups) {
			if d.n%8 == 0 {
				volatile = nil // the durable point: everything before it is on disk
			} else {
				volatile = append(volatile, loc)
			}
		}
		return meta, loc, err
	}}
	ctx := context.Background()
	s := commitcheck.Storm{Catalog: d, Namespace: table.Identifier{"verify"}, Prefix: "s", Tables: 1, Writers: 1, Commits: 21}
	if err := s.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	res := s.Run(ctx)
	// kill -9: the process and what it had not made durable are gone.
	if err := real.Close(); err != nil {
		t.Fatal(err)
	}
	if len(volatile) == 0 {
		t.Fatal("the storm left nothing to lose")
	}
	for _, loc := range volatile {
		if err := os.Remove(strings.TrimPrefix(loc, "file://")); err != nil {
			t.Fatal(err)
		}
	}
	restarted := openEmbedded(t, dir)
	t.Cleanup(func() { restarted.Close() })
	rep, err := commitcheck.Check(ctx, restarted, s.Idents(), res.Log.Attempts())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[commitcheck.Lost] == 0 || rep.Counts[commitcheck.Unreadable] == 0 {
		t.Fatalf("want lost and unreadable, got %v: %v", rep.Counts, rep.Anomalies)
	}
	for _, a := range rep.Anomalies {
		if a.Kind != commitcheck.Lost && a.Kind != commitcheck.Unreadable {
			t.Errorf("unexpected %s", a)
		}
	}
	t.Logf("%d volatile metadata files lost: %v", len(volatile), rep.Counts)
}

// TestCatchesTwoAcknowledgedWithOneSequenceNumber: two answers that
// acknowledge snapshots with the same sequence number are a lost update,
// whatever history the catalog keeps.
func TestCatchesTwoAcknowledgedWithOneSequenceNumber(t *testing.T) {
	cat := openEmbedded(t, t.TempDir())
	t.Cleanup(func() { cat.Close() })
	ctx := context.Background()
	s := commitcheck.Storm{Catalog: cat, Namespace: table.Identifier{"verify"}, Prefix: "s", Tables: 1, Writers: 1, Commits: 3}
	if err := s.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	attempts := s.Run(ctx).Log.Attempts()
	if rep, err := commitcheck.Check(ctx, cat, s.Idents(), attempts); err != nil || rep.Errors() != 0 {
		t.Fatalf("before the change: %v %v", err, rep.Anomalies)
	}
	for _, a := range attempts {
		if a.Ack == nil {
			t.Fatalf("attempt %s acknowledged without its snapshot recorded", a.Marker)
		}
	}
	// As if the catalog had answered the third commit on the second's
	// parent, with its sequence number.
	ack := *attempts[2].Ack
	ack.Parent, ack.Sequence = attempts[1].Ack.Parent, attempts[1].Ack.Sequence
	attempts[2].Ack = &ack
	rep, err := commitcheck.Check(ctx, cat, s.Idents(), attempts)
	if err != nil {
		t.Fatal(err)
	}
	forks := only(t, rep, commitcheck.Forked)
	if len(forks) != 1 || !strings.Contains(forks[0].Found, attempts[1].Marker) || !strings.Contains(forks[0].Found, attempts[2].Marker) {
		t.Fatalf("evidence names both markers? %v", forks)
	}
}
