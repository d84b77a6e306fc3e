package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// A mix is traffic like a platform's: weighted operations, each on a table
// chosen by a key distribution, all at once. Mixes are registered values
// like scenarios (RegisterMix); their operations are the single-operation
// scenarios' operations, and each operation's line is named after its own
// scenario (load_table.latency, …) with params.mix saying which mix it
// ran in.

// ErrBadMix is returned by ParseMix for weights or a name it cannot use.
var ErrBadMix = errors.New("bad --mix")

// Weight is one operation's share of a mix, relative to the others'.
type Weight struct {
	Op     string
	Weight float64
}

// Mix is a weighted set of operations. A Mix value is immutable once
// registered or parsed and safe for concurrent use.
type Mix struct {
	// Name is the mix line's scenario suffix (mix.<Name>); "custom" for
	// weights given on the command line.
	Name string
	// Doc is one line for `katbench list`.
	Doc string
	// Weights, in the order given; only positive weights run.
	Weights []Weight
	// Keys is the mix's own key distribution, used when --keys is not
	// given (the zero value is uniform).
	Keys Keys
}

// String is the weights in ParseMix's form.
func (m Mix) String() string {
	parts := make([]string, len(m.Weights))
	for i, w := range m.Weights {
		parts[i] = w.Op + "=" + strconv.FormatFloat(w.Weight, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Share is op's fraction of the mix's operations (0 when absent).
func (m Mix) Share(op string) float64 {
	var total, mine float64
	for _, w := range m.Weights {
		total += w.Weight
		if w.Op == op {
			mine += w.Weight
		}
	}
	if total == 0 {
		return 0
	}
	return mine / total
}

// Has reports whether op has a positive weight in m.
func (m Mix) Has(op string) bool {
	for _, w := range m.Weights {
		if w.Op == op && w.Weight > 0 {
			return true
		}
	}
	return false
}

// validate checks the weights: known operations, each once, none
// negative, a positive total.
func (m Mix) validate() error {
	var total float64
	seen := map[string]bool{}
	for _, w := range m.Weights {
		if _, ok := mixOps[w.Op]; !ok {
			return fmt.Errorf("%w: unknown operation %q (operations: %s)", ErrBadMix, w.Op, strings.Join(MixOps(), ", "))
		}
		if seen[w.Op] {
			return fmt.Errorf("%w: operation %q given twice", ErrBadMix, w.Op)
		}
		seen[w.Op] = true
		if math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) || w.Weight < 0 || w.Weight > 1e9 {
			return fmt.Errorf("%w: weight of %s is %v: want a number from 0 to 1e9", ErrBadMix, w.Op, w.Weight)
		}
		total += w.Weight
	}
	if !(total > 0) {
		return fmt.Errorf("%w: the weights add up to %v: at least one must be positive", ErrBadMix, total)
	}
	return nil
}

var (
	mixMu  sync.RWMutex
	mixReg = map[string]Mix{}
)

// RegisterMix adds a named mix. It panics on a duplicate or invalid mix:
// that is a programming error found at init, never a user input.
func RegisterMix(m Mix) {
	if m.Name == "" || m.Name == "custom" {
		panic("scenarios: RegisterMix needs a Name other than custom")
	}
	if err := m.validate(); err != nil {
		panic("scenarios: mix " + m.Name + ": " + err.Error())
	}
	if m.Keys.Dist == "" {
		m.Keys = UniformKeys
	}
	mixMu.Lock()
	defer mixMu.Unlock()
	if _, dup := mixReg[m.Name]; dup {
		panic("scenarios: duplicate registration of mix " + m.Name)
	}
	mixReg[m.Name] = m
}

// Mixes returns every registered mix, by name.
func Mixes() []Mix {
	mixMu.RLock()
	defer mixMu.RUnlock()
	out := make([]Mix, 0, len(mixReg))
	for _, m := range mixReg {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func mixNames() []string {
	var names []string
	for _, m := range Mixes() {
		names = append(names, m.Name)
	}
	return names
}

// ParseMix reads a --mix value: the name of a registered mix, or weights
// like 'load_table=80,table_exists=10,commit_table=10' (a mix named
// custom).
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "=") {
		mixMu.RLock()
		m, ok := mixReg[s]
		mixMu.RUnlock()
		if !ok {
			return Mix{}, fmt.Errorf("%w: no mix named %q (mixes: %s; or weights like load_table=90,commit_table=10)", ErrBadMix, s, strings.Join(mixNames(), ", "))
		}
		return m, nil
	}
	m := Mix{Name: "custom", Keys: UniformKeys}
	for _, part := range strings.Split(s, ",") {
		op, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		op = strings.TrimSpace(op)
		if !ok || op == "" {
			return Mix{}, fmt.Errorf("%w: %q: want operation=weight", ErrBadMix, part)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil {
			return Mix{}, fmt.Errorf("%w: weight of %s: %q is not a number", ErrBadMix, op, w)
		}
		m.Weights = append(m.Weights, Weight{Op: op, Weight: v})
	}
	if err := m.validate(); err != nil {
		return Mix{}, err
	}
	return m, nil
}

// keyedOp is one prepared mix operation on one competitor: worker w's n-th
// operation, on the table of index key. Safe for concurrent use by
// different workers.
type keyedOp func(ctx context.Context, w, n, key int) error

// mixOp is an operation a mix can weigh.
type mixOp struct {
	// scenario names the operation's lines: its single-operation scenario.
	scenario string
	doc      string
	// prepare builds the operation for one competitor, once per mix run on
	// it; a Skip error makes the mix's lines on it skipped.
	prepare func(ctx context.Context, env *Env, p *mixPrep) (keyedOp, error)
}

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

// mixOps are the operations, by name.
var mixOps = map[string]mixOp{
	"load_table": {scenario: "load_table.latency", doc: "load the key's table",
		prepare: func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
			cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
			return func(ctx context.Context, _, _, key int) error {
				_, err := cat.LoadTable(ctx, tables[key])
				return err
			}, nil
		}},
	"table_exists": {scenario: "table_exists.latency", doc: "check the key's table exists (every other check a miss); a wrong answer is an error",
		prepare: func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
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
		}},
	"commit_table": {scenario: "commit_table.latency",
		doc: "reload the key's table and move its branch (main where the catalog keeps no other), guarded by the branch's snapshot: a lost race retries with backoff and counts as a conflict",
		prepare: func(ctx context.Context, env *Env, p *mixPrep) (keyedOp, error) {
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
		}},
	"create_table": {scenario: "create_table.latency", doc: "create a table in the work namespace",
		prepare: func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
			op := createOp(env.Competitor.Catalog(), env.Dataset.Work, fmt.Sprintf("mix_t%d_r%d", env.Threads, env.Round), env.Created)
			return func(ctx context.Context, w, n, _ int) error { return op(ctx, w, n) }, nil
		}},
	"list_tables": {scenario: "list_tables.latency", doc: "list every table of the key's namespace",
		prepare: func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
			cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
			return func(ctx context.Context, _, _, key int) error {
				for _, err := range cat.ListTables(ctx, icecatalog.NamespaceFromIdent(tables[key])) {
					if err != nil {
						return err
					}
				}
				return nil
			}, nil
		}},
	"list_namespaces": {scenario: "list_namespaces.latency", doc: "list the namespaces beside the key's namespace (its parent's children)",
		prepare: func(_ context.Context, env *Env, _ *mixPrep) (keyedOp, error) {
			cat, tables := env.Competitor.Catalog(), env.Dataset.Tables
			return func(ctx context.Context, _, _, key int) error {
				ns := icecatalog.NamespaceFromIdent(tables[key])
				if len(ns) > 1 {
					ns = ns[:len(ns)-1]
				}
				_, err := cat.ListNamespaces(ctx, ns)
				return err
			}, nil
		}},
}

// MixOps lists the operations a mix can weigh.
func MixOps() []string {
	out := make([]string, 0, len(mixOps))
	for name := range mixOps {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
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

func init() {
	RegisterMix(Mix{Name: "read-heavy", Doc: "reads and updates 90/10, as Polaris' read/update benchmark: loads, existence checks, contended commits",
		Weights: []Weight{{"load_table", 80}, {"table_exists", 10}, {"commit_table", 10}}})
	RegisterMix(Mix{Name: "write-heavy", Doc: "half commits, a tenth creates, the rest loads",
		Weights: []Weight{{"load_table", 40}, {"commit_table", 50}, {"create_table", 10}}})
	RegisterMix(Mix{Name: "commit-storm", Doc: "commits on a few hot tables (2 % of them get every operation): conflicts and retries",
		Weights: []Weight{{"commit_table", 90}, {"load_table", 10}}, Keys: Keys{Dist: "hotspot", Fraction: 0.02, Share: 1}})
	RegisterMix(Mix{Name: "crawl", Doc: "a crawler: list namespaces and tables and load every table in turn",
		Weights: []Weight{{"list_namespaces", 5}, {"list_tables", 15}, {"load_table", 80}}, Keys: Keys{Dist: "sequential"}})
}
