package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

import ()

// keyedOp is one prepared mix operation on one competitor: worker w's n-th
// operation, on the table of index key. Safe for concurrent use by
// different workers.
type keyedOp func(ctx context.Context, w, n, key int) error

// mixOp prepares one of the operations a mix can weigh
// (workload.MixOps) for one competitor, once per mix run on it; a Skip
// error makes the mix's lines on it skipped.
type mixOp func(ctx context.Context, env *Env, p *mixPrep) (keyedOp, error)

// mixPrep is what a mix's operations share on one competitor: the
// commits' counters (swapped by the runner between lines, never during a
// measurement) and the misses table_exists asks for.
type mixPrep struct {
	counts *contendedCounts
	snaps  [2]int64
	// ref is the branch the commits move: the contended branch, or main
	// on a catalog that keeps no branch of a table's own (Nessie).
	ref string
}

// mixOps are the operations, by name: one for each of workload.MixOps
// (TestMixOpsImplemented).
var mixOps = map[string]mixOp{
	"load_table": func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
		cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
		return func(ctx context.Context, _, _, key int) error {
			_, err := cat.LoadTable(ctx, tables[key])
			return err
		}, nil
	},
	"table_exists": func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
		cat, tables, misses := env.Competitor.Catalog(), env.Dataset.Tables, env.Dataset.Misses(256)
		return func(ctx context.Context, _, n, key int) error {
			id, hit := tables[key], n%2 == 0
			if !hit {
				id = misses[key%len(misses)]
			}
			ok, err := cat.CheckTableExists(ctx, id)
			if err == nil && ok != hit {
				err = fmt.Errorf("table_exists %s: got %v, want %v", strings.Join(id, "."), ok, hit)
			}
			return err
		}, nil
	},
	"commit_table": func(ctx context.Context, env *Env, p *mixPrep) (keyedOp, error) {
		cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
		p.ref = contendedBranch
		snaps, err := prepareFlips(ctx, cat, tables, env.Opts.Parallel, &p.ref)
		if errors.Is(err, errBranchDropped) {
			return nil, Skip("commits race on a branch of each table: " + err.Error())
		}
		if err != nil {
			return nil, fmt.Errorf("prepare the tables for commits: %w", err)
		}
		p.snaps = snaps
		if p.ref == mainBranch {
			return func(ctx context.Context, _, _, key int) error {
				return commitRef(ctx, cat, tables[key], mainBranch, p.counts, appendMain)
			}, nil
		}
		return func(ctx context.Context, _, _, key int) error {
			return flipBranch(ctx, cat, tables[key], p.ref, p.snaps, p.counts)
		}, nil
	},
	"create_table": func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
		op := createOp(env.Competitor.Catalog(), env.Dataset.Work, fmt.Sprintf("mix_t%d_r%d", env.Threads, env.Round), env.Created)
		return func(ctx context.Context, w, n, _ int) error { return op(ctx, w, n) }, nil
	},
	"list_tables": func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
		cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
		return func(ctx context.Context, _, _, key int) error {
			for _, err := range cat.ListTables(ctx, icecatalog.NamespaceFromIdent(tables[key])) {
				if err != nil {
					return err
				}
			}
			return nil
		}, nil
	},
	"list_namespaces": func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
		cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
		return func(ctx context.Context, _, _, key int) error {
			ns := icecatalog.NamespaceFromIdent(tables[key])
			if len(ns) > 1 {
				ns = ns[:len(ns)-1]
			}
			_, err := cat.ListNamespaces(ctx, ns)
			return err
		}, nil
	},
}

// prepareFlips gives every table two snapshots and the contended branch,
// on parallel workers, so commits can race on any of them. A catalog that
// drops the branch (Nessie keeps only main) gets main on the first
// snapshot instead, and *ref is set to main.
func prepareFlips(ctx context.Context, cat icecatalog.Catalog, tables []table.Identifier, parallel int, ref *string) ([2]int64, error) {
	var (
		mu    sync.Mutex
		snaps [2]int64
		first error
		wg    sync.WaitGroup
		next  = make(chan table.Identifier)
	)
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				tbl, err := cat.LoadTable(ctx, id)
				var s [2]int64
				if err == nil {
					s, err = addFlipBranch(ctx, cat, id, tbl)
				}
				if errors.Is(err, errBranchDropped) {
					if err = onMain(ctx, cat, id); err == nil {
						mu.Lock()
						*ref = mainBranch
						mu.Unlock()
					}
				}
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("%s: %w", strings.Join(id, "."), err)
				}
				snaps = s
				mu.Unlock()
			}
		}()
	}
	for _, id := range tables {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		next <- id
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return snaps, first
}

const mainBranch = "main"

// onMain checks id has a main branch to commit to.
func onMain(ctx context.Context, cat icecatalog.Catalog, id table.Identifier) error {
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		return err
	}
	if _, ok := branchHead(tbl.Metadata(), mainBranch); !ok {
		return fmt.Errorf("%w: nor a main branch", errBranchDropped)
	}
	return nil
}

// mainSnapshots numbers the snapshots appendMain adds: unique in the
// process, above the two every table starts with.
var mainSnapshots atomic.Int64

func init() { mainSnapshots.Store(1 << 32) }

// appendMain is the commit of a catalog that keeps only a table's current
// snapshot (Nessie): a new snapshot whose parent is main's head, and main
// moved to it. The catalog drops the old one, so the metadata does not
// grow as the commits go on.
func appendMain(meta table.Metadata, cur int64) []table.Update {
	id := mainSnapshots.Add(1)
	schemaID := meta.CurrentSchema().ID
	return []table.Update{
		table.NewAddSnapshotUpdate(&table.Snapshot{
			SnapshotID:       id,
			ParentSnapshotID: &cur,
			SequenceNumber:   meta.LastSequenceNumber() + 1,
			TimestampMs:      time.Now().UnixMilli(),
			ManifestList:     fmt.Sprintf("%s/metadata/snap-%d-katbench.avro", meta.Location(), id),
			Summary:          &table.Summary{Operation: table.OpAppend},
			SchemaID:         &schemaID,
		}),
		branchUpdate(mainBranch, id),
	}
}
