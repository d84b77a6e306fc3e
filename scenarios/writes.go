package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// The write-throughput scenarios: N workers creating distinct tables, N
// workers committing to distinct tables, and N workers committing to one
// table, where every lost race must come back as table.ErrCommitFailed and
// be retried. The same for every competitor; for competitors with
// durability modes, the durability sweep runs the first two in each mode.

// SweepThreads are the worker counts of the durability sweep's throughput
// scenarios: one writer, and enough to show what shared flushes buy.
var SweepThreads = []int{1, 8, 32}

// maxAttempts bounds the retries of one contended commit; an op that loses
// this many races in a row is an error (a livelock would otherwise hang).
const maxAttempts = 1000

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "create_table.throughput", Kind: bench.KindThroughput, Metric: results.OpsSec, Levels: true, Order: 62, Writes: true,
			Doc:   "N workers create distinct tables in the work namespace for --duration, one level per --threads value",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			prefix := fmt.Sprintf("tput_t%d_r%d", env.Threads, env.Round)
			op := createOp(env.Competitor.Catalog(), env.Dataset.Work, prefix, env.Created)
			bc := countBatches(env.Competitor)
			m := writeThroughput(ctx, env, op)
			return Outcome{M: m, Params: bc.addTo(nil)}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "commit_table.throughput", Kind: bench.KindThroughput, Metric: results.OpsSec, Levels: true, Order: 64, Writes: true,
			Doc:   "N workers each commit set-properties updates (guarded by the table UUID) to a table of their own, for --duration",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			// Batches are counted over the commits alone, not the
			// creates of the tables they go to.
			var bc batchCount
			out, err := runOwnCommits(ctx, env.Competitor.Catalog(), env.Dataset.Work,
				fmt.Sprintf("ctput_t%d_r%d", env.Threads, env.Round), env.Created,
				func(op Op) Measurement {
					bc = countBatches(env.Competitor)
					return writeThroughput(ctx, env, op)
				}, env.Threads)
			if err == nil {
				out.Params = bc.addTo(out.Params)
			}
			return out, err
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "commit_table.contended", Kind: bench.KindThroughput, Metric: results.OpsSec, Levels: true, Order: 66, Writes: true,
			Doc: "N workers commit to one table, each guarded by the branch it moves: losers must get ErrCommitFailed " +
				"and retry; ops/s counts successes, the line's params count conflicts and retries",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: runContended,
	})
	for i, mode := range DurabilityModes {
		for j, n := range SweepThreads {
			Register(Scenario{
				Scenario: bench.Scenario{
					Name: fmt.Sprintf("create_table.durability.%s.t%d", mode, n), Kind: bench.KindDurability, Metric: results.OpsSec,
					Threads: n, Order: 80 + 3*i + j, Sweep: true, Writes: true,
					Doc:   fmt.Sprintf("create_table.throughput.t%d on a fresh competitor in durability mode %s", n, mode),
					Needs: []bench.Requirement{NeedDurabilityModes},
				},
				Run: func(ctx context.Context, env *Env) (Outcome, error) {
					return inDurability(ctx, env, mode, fmt.Sprintf("create_t%d", n), func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error) {
						return Outcome{M: writeThroughput(ctx, env, createOp(c.Catalog(), ns, "sweep", created))}, nil
					})
				},
			})
			Register(Scenario{
				Scenario: bench.Scenario{
					Name: fmt.Sprintf("commit_table.durability.%s.t%d", mode, n), Kind: bench.KindDurability, Metric: results.OpsSec,
					Threads: n, Order: 90 + 3*i + j, Sweep: true, Writes: true,
					Doc:   fmt.Sprintf("commit_table.throughput.t%d on a fresh competitor in durability mode %s", n, mode),
					Needs: []bench.Requirement{NeedDurabilityModes},
				},
				Run: func(ctx context.Context, env *Env) (Outcome, error) {
					return inDurability(ctx, env, mode, fmt.Sprintf("commit_t%d", n), func(ctx context.Context, c competitors.Competitor, ns table.Identifier, created func(...table.Identifier)) (Outcome, error) {
						return runOwnCommits(ctx, c.Catalog(), ns, "sweep", created,
							func(op Op) Measurement { return writeThroughput(ctx, env, op) }, env.Threads)
					})
				},
			})
		}
	}
}

// writeThroughput runs op on env.Threads workers for the run's duration
// after its warm-up, and on until at least one operation per worker ended
// in the measured phase: a durable write can take longer than a short
// --duration on a slow or busy machine.
func writeThroughput(ctx context.Context, env *Env, op Op) Measurement {
	o := env.Opts
	return ThroughputAtLeast(ctx, o.Delay.wrap(op), env.Threads, min(o.Warmup, o.Duration), o.Duration, int64(env.Threads))
}

// runOwnCommits creates one table per worker in ns (named prefix_w<N>) and
// measures ownCommitOp on them with measure.
func runOwnCommits(ctx context.Context, cat icecatalog.Catalog, ns table.Identifier, prefix string,
	created func(...table.Identifier), measure func(Op) Measurement, workers int,
) (Outcome, error) {
	tables := make([]table.Identifier, workers)
	uuids := make([]uuid.UUID, workers)
	for w := range tables {
		id := append(append(table.Identifier{}, ns...), fmt.Sprintf("%s_w%d", prefix, w))
		tbl, err := cat.CreateTable(ctx, id, dataset.Schema)
		if err != nil {
			return Outcome{}, Skip("create commit tables: " + err.Error())
		}
		created(id)
		tables[w], uuids[w] = id, tbl.Metadata().TableUUID()
	}
	return Outcome{M: measure(ownCommitOp(cat, tables, uuids)), Params: map[string]any{"commit_tables": workers}}, nil
}

// ownCommitOp commits one set-properties update per operation to worker w's
// own table tables[w], guarded by its UUID: no two workers touch one table.
func ownCommitOp(cat icecatalog.Catalog, tables []table.Identifier, uuids []uuid.UUID) Op {
	reqs := make([][]table.Requirement, len(tables))
	for w, u := range uuids {
		reqs[w] = []table.Requirement{table.AssertTableUUID(u)}
	}
	return func(ctx context.Context, w, i int) error {
		_, _, err := cat.CommitTable(ctx, tables[w], reqs[w], []table.Update{
			table.NewSetPropertiesUpdate(map[string]string{"katbench.commit": fmt.Sprint(i)}),
		})
		return err
	}
}

// contendedBranch is the branch the contended commits move.
const contendedBranch = "katbench"

// runContended creates one table with two snapshots and a branch on the
// first, then has every worker flip the branch to the other snapshot,
// guarded by the branch's current snapshot (AssertRefSnapshotID) — the
// optimistic check of a real Iceberg writer, whose metadata does not grow
// as the commits go on. A worker that loses the race reloads and retries;
// the op's time runs from its first attempt to its success.
func runContended(ctx context.Context, env *Env) (Outcome, error) {
	cat := env.Competitor.Catalog()
	id := append(append(table.Identifier{}, env.Dataset.Work...), fmt.Sprintf("contended_t%d_r%d", env.Threads, env.Round))
	snaps, err := setupContended(ctx, cat, id, env.Created)
	if err != nil {
		return Outcome{}, Skip("set up the contended table: " + err.Error())
	}
	var counts contendedCounts
	op := contendedOp(cat, id, snaps, &counts)
	m := writeThroughput(ctx, env, op)
	return Outcome{M: m, Params: counts.params()}, nil
}

// contendedCounts are the contended scenario's counters over one round,
// warm-up included.
type contendedCounts struct {
	successes atomic.Int64 // commits that won
	conflicts atomic.Int64 // attempts that lost with table.ErrCommitFailed
	retried   atomic.Int64 // successful commits that needed more than one attempt
	maxTries  atomic.Int64 // most attempts one commit needed
	unwrapped atomic.Int64 // conflicts reported without table.ErrCommitFailed
}

// requirementFailed starts iceberg-go's requirement validation errors, which
// have no sentinel; a catalog that returns them as they are reports a lost
// race without table.ErrCommitFailed.
const requirementFailed = "requirement failed: "

func (c *contendedCounts) params() map[string]any {
	return map[string]any{
		"contended_successes":    c.successes.Load(),
		"contended_conflicts":    c.conflicts.Load(),
		"contended_retried_ops":  c.retried.Load(),
		"contended_max_attempts": c.maxTries.Load(),
		// Conflicts the competitor reported without ErrCommitFailed (a
		// plain requirement failure); included in contended_conflicts.
		"contended_conflicts_not_commit_failed": c.unwrapped.Load(),
		"contended_counts":                      "one round, warm-up included",
		"contended_backoff":                     fmt.Sprintf("uniform random, up to %s doubling to %s per lost race", backoffBase, backoffMax),
	}
}

// errBranchDropped: the catalog manages branches itself and dropped the
// one a commit scenario set on a table.
var errBranchDropped = errors.New("the catalog did not keep a table's own branch")

// setupContended creates id (reporting it to created) with snapshots A and
// B (B's parent is A) and the branch on A, and returns their ids.
func setupContended(ctx context.Context, cat icecatalog.Catalog, id table.Identifier, created func(...table.Identifier)) ([2]int64, error) {
	snaps := [2]int64{1, 2}
	tbl, err := cat.CreateTable(ctx, id, dataset.Schema)
	if err != nil {
		return snaps, err
	}
	created(id)
	return addFlipBranch(ctx, cat, id, tbl)
}

// addFlipBranch gives the existing table id (tbl, as loaded) snapshots A
// and B (B's parent is A) and the contended branch on A, and returns
// their ids.
func addFlipBranch(ctx context.Context, cat icecatalog.Catalog, id table.Identifier, tbl *table.Table) ([2]int64, error) {
	snaps := [2]int64{1, 2}
	meta := tbl.Metadata()
	schemaID := meta.CurrentSchema().ID
	now := time.Now().UnixMilli()
	var updates []table.Update
	for i, sid := range snaps {
		var parent *int64
		if i > 0 {
			parent = &snaps[i-1]
		}
		updates = append(updates, table.NewAddSnapshotUpdate(&table.Snapshot{
			SnapshotID:       sid,
			ParentSnapshotID: parent,
			SequenceNumber:   meta.LastSequenceNumber() + int64(i) + 1,
			TimestampMs:      now + int64(i),
			ManifestList:     fmt.Sprintf("%s/metadata/snap-%d-katbench.avro", meta.Location(), sid),
			Summary:          &table.Summary{Operation: table.OpAppend},
			SchemaID:         &schemaID,
		}))
	}
	updates = append(updates, branchUpdate(contendedBranch, snaps[0]))
	var err error
	if _, _, err = cat.CommitTable(ctx, id, []table.Requirement{table.AssertTableUUID(meta.TableUUID())}, updates); err != nil {
		return snaps, err
	}
	// Some catalogs manage branches themselves and drop a table's own refs
	// (Nessie): the scenario cannot run there.
	tbl, err = cat.LoadTable(ctx, id)
	if err != nil {
		return snaps, err
	}
	if head, ok := branchHead(tbl.Metadata(), contendedBranch); !ok || head != snaps[0] {
		return snaps, fmt.Errorf("%w: table branch %q (set to snapshot %d)", errBranchDropped, contendedBranch, snaps[0])
	}
	return snaps, nil
}

// contendedOp moves the branch to the snapshot it is not on, retrying lost
// races. Any error other than table.ErrCommitFailed fails the op.
func contendedOp(cat icecatalog.Catalog, id table.Identifier, snaps [2]int64, counts *contendedCounts) Op {
	return func(ctx context.Context, _, _ int) error {
		return flipBranch(ctx, cat, id, contendedBranch, snaps, counts)
	}
}

// flipBranch moves id's branch to the snapshot of snaps it is not on,
// reloading and retrying (with backoff) each lost race, as an Iceberg
// client does; counts gets the outcome. Any error other than a lost race
// fails it.
func flipBranch(ctx context.Context, cat icecatalog.Catalog, id table.Identifier, branch string, snaps [2]int64, counts *contendedCounts) error {
	return commitRef(ctx, cat, id, branch, counts, func(_ table.Metadata, cur int64) []table.Update {
		next := snaps[0]
		if cur == snaps[0] {
			next = snaps[1]
		}
		return []table.Update{branchUpdate(branch, next)}
	})
}

// commitRef commits the updates next returns for id as loaded and its
// branch's head, guarded by that head (AssertRefSnapshotID), reloading
// and retrying (with backoff) each lost race; counts gets the outcome.
// Any error other than a lost race fails it.
func commitRef(ctx context.Context, cat icecatalog.Catalog, id table.Identifier, branch string, counts *contendedCounts,
	next func(meta table.Metadata, cur int64) []table.Update) error {
	for attempt := int64(1); attempt <= maxAttempts; attempt++ {
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			return err
		}
		meta := tbl.Metadata()
		cur, ok := branchHead(meta, branch)
		if !ok {
			return fmt.Errorf("contended table %v lost its branch %s", id, branch)
		}
		_, _, err = cat.CommitTable(ctx, id,
			[]table.Requirement{table.AssertTableUUID(meta.TableUUID()), table.AssertRefSnapshotID(branch, &cur)},
			next(meta, cur))
		if errors.Is(err, table.ErrCommitFailed) {
			counts.conflicts.Add(1)
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		if err != nil && strings.HasPrefix(err.Error(), requirementFailed) {
			// A lost race reported without ErrCommitFailed (iceberg-go's
			// SQL catalog): a conflict all the same, counted apart so
			// the line shows the competitor's deviation.
			counts.conflicts.Add(1)
			counts.unwrapped.Add(1)
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		counts.successes.Add(1)
		if attempt > 1 {
			counts.retried.Add(1)
		}
		storeMax(&counts.maxTries, attempt)
		return nil
	}
	return fmt.Errorf("contended commit on %v: lost %d races in a row", id, maxAttempts)
}

// Retry backoff of a lost contended commit: a uniformly random wait in
// [0, min(backoffBase·2^(attempt-1), backoffMax)), as Iceberg clients back
// off (Java's commit.retry.* waits 100 ms to 60 s; ours are scaled down to
// the catalog's own commit times). Without it a loser that reloads and
// retries at once is always one commit behind the writer that just won,
// which re-queues first: measured on the embedded catalog's FIFO commit
// lock, one worker of 8 lost 1,000 races in a row.
const (
	backoffBase = 50 * time.Microsecond
	backoffMax  = 5 * time.Millisecond
)

// backoff waits before the retry that follows attempt lost attempts, or
// returns ctx's error if ctx ends first.
func backoff(ctx context.Context, attempt int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(backoffDelay(attempt, rand.Int64N))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoffCeiling is the longest wait before retry attempt: backoffBase
// doubled per earlier attempt, at most backoffMax.
func backoffCeiling(attempt int64) time.Duration {
	if attempt >= 10 {
		return backoffMax
	}
	return min(backoffBase<<(attempt-1), backoffMax)
}

// backoffDelay is the wait before retry attempt: uniform in
// [0, backoffCeiling(attempt)), drawn with intN (rand.Int64N).
func backoffDelay(attempt int64, intN func(int64) int64) time.Duration {
	return time.Duration(intN(int64(backoffCeiling(attempt))))
}

// branchUpdate points branch at snapshot. The retention
// fields are left out (0 is "unset" to iceberg-go and omitted from the
// JSON): -1 reached the REST servers as "min-snapshots-to-keep": -1, which
// Java's catalogs (the fixture, Polaris) refuse.
func branchUpdate(branch string, snapshot int64) table.Update {
	return table.NewSetSnapshotRefUpdate(branch, snapshot, table.BranchRef, 0, 0, 0)
}

// branchHead returns the snapshot id branch points at in meta.
func branchHead(meta table.Metadata, branch string) (int64, bool) {
	for name, ref := range meta.Refs() {
		if name == branch {
			return ref.SnapshotID, true
		}
	}
	return 0, false
}

// storeMax raises a to v if v is larger.
func storeMax(a *atomic.Int64, v int64) {
	for m := a.Load(); v > m; m = a.Load() {
		if a.CompareAndSwap(m, v) {
			return
		}
	}
}
