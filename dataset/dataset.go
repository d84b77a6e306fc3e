package dataset

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
)

// Shape is the namespace tree a dataset is built on, as in Polaris'
// benchmark and warp's iceberg mode: Width children per namespace, Depth
// levels below the root, TablesPerLeaf tables in every leaf namespace.
type Shape struct {
	Width         int `json:"width"`
	Depth         int `json:"depth"`
	TablesPerLeaf int `json:"tables_per_leaf"`
}

// Leaves is the number of leaf namespaces.
func (s Shape) Leaves() int {
	n := 1
	for range s.Depth {
		n *= s.Width
	}
	return n
}

// Tables is the number of tables the shape holds.
func (s Shape) Tables() int { return s.Leaves() * s.TablesPerLeaf }

// ShapeFor returns the default shape holding at least tables tables: a
// 2×2 tree for small datasets (200 tables with --quick), a 10×2 tree of 100
// leaves from 1,000 tables up (10,000 tables for the full run).
func ShapeFor(tables int) Shape {
	s := Shape{Width: 2, Depth: 2}
	if tables >= 1000 {
		s = Shape{Width: 10, Depth: 2}
	}
	s.TablesPerLeaf = max(1, (tables+s.Leaves()-1)/s.Leaves())
	return s
}

// Validate rejects shapes that cannot be built.
func (s Shape) Validate() error {
	switch {
	case s.Width < 1 || s.Depth < 0 || s.TablesPerLeaf < 1:
		return fmt.Errorf("dataset shape %+v: width and tables per leaf must be ≥ 1, depth ≥ 0", s)
	case s.Tables() > 10_000_000:
		return fmt.Errorf("dataset shape %+v: %d tables is more than katbench will create", s, s.Tables())
	}
	return nil
}

// Schema is the schema of every table katbench creates: small, so that a
// table's metadata is the size a real catalog serves most often.
var Schema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true},
	iceberg.NestedField{ID: 3, Name: "payload", Type: iceberg.PrimitiveTypes.String},
)

// Dataset is what setup created on one competitor.
type Dataset struct {
	Root       table.Identifier   // the run's root namespace
	Namespaces []table.Identifier // every namespace, parents before children
	Tables     []table.Identifier // the benchmark tables, in creation order
	// Work is a namespace under Root for scenarios that create tables.
	Work table.Identifier
	// TablesErr is why tables could not be created, when they could not:
	// scenarios that need tables are then skipped with this text.
	TablesErr error

	history map[int]*historyResult // history levels built on first use (history.go)
	// historyNS are the namespaces of the history levels, parents first:
	// apart from Namespaces, which the discovery scenarios walk.
	historyNS []table.Identifier
	// given marks the tables of a read-only run (--read-only): the user's,
	// never dropped.
	given bool
}

// Misses returns n identifiers of tables that do not exist, in existing
// namespaces.
func (d *Dataset) Misses(n int) []table.Identifier {
	out := make([]table.Identifier, n)
	leaf := d.Work
	if len(d.Tables) > 0 {
		leaf = icecatalog.NamespaceFromIdent(d.Tables[0])
	}
	for i := range out {
		out[i] = append(append(table.Identifier{}, leaf...), fmt.Sprintf("missing_%06d", i))
	}
	return out
}

// Retry is how dataset setup and cleanup repeat a request that failed with
// a transient server error: up to Attempts tries, sleeping Base, 2×Base, …
// (at most Max, with jitter) in between. Measured operations are never
// retried.
type Retry struct {
	Attempts  int
	Base, Max time.Duration
	// Transient says which errors are worth another try.
	Transient func(error) bool
}

// SetupRetry is the policy of Build and Drop.
var SetupRetry = Retry{Attempts: 6, Base: 50 * time.Millisecond, Max: 2 * time.Second, Transient: competitors.Transient}

// Do runs fn until it succeeds, fails for good, or the attempts are spent.
// again tells fn whether an earlier attempt failed (so an "already exists"
// may be its own earlier, half-answered success).
func (r Retry) Do(ctx context.Context, fn func(again bool) error) error {
	var err error
	for i := range max(r.Attempts, 1) {
		if err = fn(i > 0); err == nil || r.Transient == nil || !r.Transient(err) {
			return err
		}
		d := min(r.Base<<i, r.Max)
		d += time.Duration(rand.Int64N(int64(d)/2 + 1))
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
	return err
}

// Build creates the namespace tree and the tables on cat with `parallel`
// workers, retrying transient server errors (SetupRetry). A namespace
// failure fails the build; a table failure does not: it is recorded in
// TablesErr so storage-free scenarios still run. The returned Dataset lists
// exactly what Build created, also on error, so Drop removes nothing else:
// a root namespace that already existed is an error and is never dropped.
func Build(ctx context.Context, cat icecatalog.Catalog, root string, shape Shape, parallel int, progress bench.Progress) (*Dataset, error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	d := &Dataset{Root: table.Identifier{root}}
	d.Work = table.Identifier{root, "work"}
	planned := []table.Identifier{d.Root, d.Work}
	leaves := []table.Identifier{d.Root}
	for range shape.Depth {
		var next []table.Identifier
		for _, p := range leaves {
			for i := range shape.Width {
				ns := append(append(table.Identifier{}, p...), fmt.Sprintf("ns%d", i))
				next = append(next, ns)
				planned = append(planned, ns)
			}
		}
		leaves = next
	}
	for i, ns := range planned {
		if err := createDatasetNamespace(ctx, cat, ns); err != nil {
			return d, fmt.Errorf("create namespace %s: %w", strings.Join(ns, "."), err)
		}
		d.Namespaces = append(d.Namespaces, ns)
		bench.Step(progress, "namespaces", i+1, len(planned))
	}
	var tables []table.Identifier
	for _, leaf := range leaves {
		for t := range shape.TablesPerLeaf {
			tables = append(tables, append(append(table.Identifier{}, leaf...), fmt.Sprintf("t%06d", t)))
		}
	}
	created, err := ParallelDo(ctx, tables, parallel, createDatasetTable(cat),
		func(done int) { bench.Step(progress, "tables", done, len(tables)) })
	d.Tables = created
	d.TablesErr = err
	return d, nil
}

// createDatasetNamespace creates one dataset namespace on cat, retried as
// SetupRetry says; a retry that finds it made by an earlier attempt
// succeeds.
func createDatasetNamespace(ctx context.Context, cat icecatalog.Catalog, ns table.Identifier) error {
	return SetupRetry.Do(ctx, func(again bool) error {
		err := cat.CreateNamespace(ctx, ns, iceberg.Properties{"katbench": "dataset"})
		if again && errors.Is(err, icecatalog.ErrNamespaceAlreadyExists) {
			return nil // an earlier attempt created it, then failed to say so
		}
		return err
	})
}

// Drop removes what Build created, tables first, children before parents.
// It goes on past errors and returns them joined.
func (d *Dataset) Drop(ctx context.Context, cat icecatalog.Catalog, extra []table.Identifier, parallel int, progress bench.Progress) error {
	all := append(append([]table.Identifier{}, d.Tables...), extra...)
	var errs []error
	_, err := ParallelDo(ctx, all, parallel, func(ctx context.Context, id table.Identifier) error {
		return SetupRetry.Do(ctx, func(bool) error {
			if err := cat.DropTable(ctx, id); err != nil && !errors.Is(err, icecatalog.ErrNoSuchTable) {
				return err
			}
			return nil
		})
	}, func(done int) { bench.Step(progress, "drop tables", done, len(all)) })
	errs = append(errs, err)
	nss := append(append([]table.Identifier{}, d.Namespaces...), d.historyNS...)
	for i := len(nss) - 1; i >= 0; i-- {
		err := SetupRetry.Do(ctx, func(bool) error { return cat.DropNamespace(ctx, nss[i]) })
		if err != nil && !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
			errs = append(errs, fmt.Errorf("drop namespace %s: %w", strings.Join(nss[i], "."), err))
		}
	}
	return errors.Join(errs...)
}

// ParallelDo applies fn to every id with n workers and stops at the first
// error. It returns exactly the ids that succeeded, in input order.
func ParallelDo(ctx context.Context, ids []table.Identifier, n int, fn func(context.Context, table.Identifier) error, tick func(done int)) ([]table.Identifier, error) {
	if n < 1 {
		n = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ok := make([]bool, len(ids))
	var (
		next, done atomic.Int64
		firstErr   error
		once       sync.Once
		wg         sync.WaitGroup
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ids) || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, ids[i]); err != nil {
					once.Do(func() {
						firstErr = fmt.Errorf("%s: %w", strings.Join(ids[i], "."), err)
						cancel()
					})
					return
				}
				ok[i] = true
				if d := done.Add(1); tick != nil && (d%50 == 0 || int(d) == len(ids)) {
					tick(int(d))
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	var succeeded []table.Identifier
	for i, o := range ok {
		if o {
			succeeded = append(succeeded, ids[i])
		}
	}
	return succeeded, firstErr
}

// createDatasetTable creates one dataset table on cat, retried as
// SetupRetry says; a retry that finds the table made by an earlier
// attempt succeeds.
func createDatasetTable(cat icecatalog.Catalog) func(context.Context, table.Identifier) error {
	return func(ctx context.Context, id table.Identifier) error {
		return SetupRetry.Do(ctx, func(again bool) error {
			_, err := cat.CreateTable(ctx, id, Schema)
			if again && errors.Is(err, icecatalog.ErrTableAlreadyExists) {
				return nil
			}
			return err
		})
	}
}

// NamespaceString is ns as a log or error names it: dotted, "(root)" when
// empty.
func NamespaceString(ns table.Identifier) string {
	if len(ns) == 0 {
		return "(root)"
	}
	return strings.Join(ns, ".")
}
