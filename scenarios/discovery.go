package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// The discovery scenarios: the namespace and listing calls a query engine
// or BI tool makes before it reads anything, each on the dataset's
// namespace tree, and the crawl that strings them together. Every answer
// is checked against what the dataset holds; a wrong answer is an error.

// ListPageSize is the page size the listing scenarios ask for from a
// client that pages (iceberg-go's REST client, whose default it is), so
// a leaf of 100 tables is listed in several round trips.
const ListPageSize = 20

// pageSizer is a client that pages its listings with a page size carried
// by the context (iceberg-go's rest.Catalog).
type pageSizer interface {
	SetPageSize(ctx context.Context, size int) context.Context
}

// listContext returns ctx asking cat for size items per page (0 means
// ListPageSize), and the params saying so (none when cat does not page).
func listContext(ctx context.Context, cat icecatalog.Catalog, size int) (context.Context, map[string]any) {
	if size <= 0 {
		size = ListPageSize
	}
	if ps, ok := cat.(pageSizer); ok {
		return ps.SetPageSize(ctx, size), map[string]any{"page_size": size}
	}
	return ctx, map[string]any{}
}

// listNamespacesOp alternates a listing of the catalog's root (which must
// include the dataset's root) and of the dataset's root (which must
// include each of its children). Some catalogs (iceberg-go's SQL catalog)
// list every descendant, not only the children: that is their answer.
func listNamespacesOp(cat icecatalog.Catalog, d *dataset.Dataset) Op {
	want := d.Children(d.Root)
	return func(ctx context.Context, _, i int) error {
		var parent table.Identifier
		if i%2 == 1 {
			parent = d.Root
		}
		got, err := cat.ListNamespaces(ctx, parent)
		if err != nil {
			return fmt.Errorf("list namespaces %s: %w", dataset.NamespaceString(parent), err)
		}
		if parent == nil {
			if !slices.ContainsFunc(got, func(ns table.Identifier) bool { return slices.Equal(ns, d.Root) }) {
				return fmt.Errorf("list namespaces (root): %d namespaces without the dataset's %s", len(got), dataset.NamespaceString(d.Root))
			}
			return nil
		}
		for _, ns := range want {
			if !slices.ContainsFunc(got, func(g table.Identifier) bool { return slices.Equal(g, ns) }) {
				return fmt.Errorf("list namespaces %s: %d namespaces without %s", dataset.NamespaceString(parent), len(got), dataset.NamespaceString(ns))
			}
		}
		return nil
	}
}

// listTablesOp lists one leaf, every page, and checks the count.
func listTablesOp(cat icecatalog.Catalog, ns table.Identifier, want int) Op {
	return func(ctx context.Context, _, _ int) error {
		n := 0
		for _, err := range cat.ListTables(ctx, ns) {
			if err != nil {
				return fmt.Errorf("list tables %s: %w", dataset.NamespaceString(ns), err)
			}
			n++
		}
		if n != want {
			return fmt.Errorf("list tables %s: got %d, want %d", dataset.NamespaceString(ns), n, want)
		}
		return nil
	}
}

// firstPageOp takes the first want tables of ns's listing and stops: a
// paging client asks for one page. Fewer than want is an error.
func firstPageOp(cat icecatalog.Catalog, ns table.Identifier, want int) Op {
	return func(ctx context.Context, _, _ int) error {
		n := 0
		for _, err := range cat.ListTables(ctx, ns) {
			if err != nil {
				return fmt.Errorf("list tables %s: %w", dataset.NamespaceString(ns), err)
			}
			if n++; n == want {
				return nil
			}
		}
		return fmt.Errorf("list tables %s: got %d, want a first page of %d", dataset.NamespaceString(ns), n, want)
	}
}

// namespaceExistsOp alternates hits (dataset namespaces) and misses.
func namespaceExistsOp(cat icecatalog.Catalog, d *dataset.Dataset, n int) Op {
	order := picks(min(max(n, 1), 1<<16), len(d.Namespaces))
	return func(ctx context.Context, _, i int) error {
		hit := i%2 == 0
		ns := append(append(table.Identifier{}, d.Root...), "missing_ns_"+strconv.Itoa(i%256))
		if hit {
			ns = d.Namespaces[order[i%len(order)]]
		}
		ok, err := cat.CheckNamespaceExists(ctx, ns)
		if err == nil && ok != hit {
			err = fmt.Errorf("namespace_exists %s: got %v, want %v", dataset.NamespaceString(ns), ok, hit)
		}
		return err
	}
}

// loadNamespaceOp loads the properties of dataset namespaces in a fixed
// pseudo-random order; each must carry the property the dataset set.
func loadNamespaceOp(cat icecatalog.Catalog, d *dataset.Dataset, n int) Op {
	order := picks(min(max(n, 1), 1<<16), len(d.Namespaces))
	return func(ctx context.Context, _, i int) error {
		ns := d.Namespaces[order[i%len(order)]]
		props, err := cat.LoadNamespaceProperties(ctx, ns)
		if err != nil {
			return fmt.Errorf("load namespace %s: %w", dataset.NamespaceString(ns), err)
		}
		if props["katbench"] != "dataset" {
			return fmt.Errorf("load namespace %s: property katbench = %q, want %q", dataset.NamespaceString(ns), props["katbench"], "dataset")
		}
		return nil
	}
}

// updateNamespaceOp sets one property per operation, round robin over the
// leaves. One worker only.
func updateNamespaceOp(cat icecatalog.Catalog, leaves []table.Identifier, round int) Op {
	return func(ctx context.Context, _, i int) error {
		ns := leaves[i%len(leaves)]
		_, err := cat.UpdateNamespaceProperties(ctx, ns, nil, iceberg.Properties{"katbench.update": fmt.Sprintf("r%d_%d", round, i)})
		if err != nil {
			return fmt.Errorf("update namespace properties %s: %w", dataset.NamespaceString(ns), err)
		}
		return nil
	}
}

// crawler is one BI-tool crawl of a dataset: list every namespace under
// the dataset's root, list every table in each, load every table, one call
// after another. Each call is recorded in rec, its time and nothing else:
// the crawl's own work between calls is a queue and a slice.
type crawler struct {
	cat      icecatalog.Catalog
	rec      *results.Recorder
	firstErr error
}

// done records one call that started at t0.
func (c *crawler) done(t0 time.Time, err error) bool {
	d := time.Since(t0)
	if err != nil {
		c.rec.Error()
		if c.firstErr == nil {
			c.firstErr = err
		}
		return false
	}
	c.rec.Record(d)
	return true
}

// crawl crawls root and returns the namespaces visited and the tables
// loaded.
func (c *crawler) crawl(ctx context.Context, root table.Identifier) (namespaces, tables int) {
	var ids []table.Identifier
	queue := []table.Identifier{root}
	seen := map[string]bool{strings.Join(root, "\x1f"): true}
	for len(queue) > 0 && ctx.Err() == nil {
		ns := queue[0]
		queue = queue[1:]
		namespaces++
		t0 := time.Now()
		kids, err := c.cat.ListNamespaces(ctx, ns)
		if err != nil {
			err = fmt.Errorf("crawl: list namespaces %s: %w", dataset.NamespaceString(ns), err)
		}
		c.done(t0, err)
		// A catalog that lists every descendant, not only the children,
		// has each namespace crawled once all the same.
		for _, k := range kids {
			key := strings.Join(k, "\x1f")
			if len(k) > len(ns) && slices.Equal(k[:len(ns)], ns) && !seen[key] {
				seen[key] = true
				queue = append(queue, k)
			}
		}
		ids = ids[:0]
		t0 = time.Now()
		err = nil
		for id, lerr := range c.cat.ListTables(ctx, ns) {
			if lerr != nil {
				err = fmt.Errorf("crawl: list tables %s: %w", dataset.NamespaceString(ns), lerr)
				break
			}
			ids = append(ids, id)
		}
		c.done(t0, err)
		for _, id := range ids {
			if ctx.Err() != nil {
				break
			}
			t0 = time.Now()
			_, err := c.cat.LoadTable(ctx, id)
			if err != nil {
				err = fmt.Errorf("crawl: load table %s: %w", strings.Join(id, "."), err)
			}
			if c.done(t0, err) {
				tables++
			}
		}
	}
	return namespaces, tables
}

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "list_namespaces.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 100,
			Doc:   "list namespaces, alternately at the catalog's root and one level down (the dataset's root)",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			cat := env.Competitor.Catalog()
			ctx, p := listContext(ctx, cat, env.Opts.PageSize)
			p["parents"] = []string{"(root)", dataset.NamespaceString(env.Dataset.Root)}
			return Outcome{M: readLatency(ctx, env.Opts, listNamespacesOp(cat, env.Dataset)), Params: p}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "list_tables.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 101,
			Doc:   "list every table of one leaf namespace, every page (params.page_size where the client pages)",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			cat := env.Competitor.Catalog()
			ctx, p := listContext(ctx, cat, env.Opts.PageSize)
			ns, n := env.Dataset.Leaf()
			p["leaf_tables"] = n
			return Outcome{M: readLatency(ctx, env.Opts, listTablesOp(cat, ns, n)), Params: p}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "list_tables.first_page.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 101,
			Doc: "list the first page of one leaf namespace's tables and stop (params.page_size); " +
				"a client that does not page reads the whole namespace to give it (params.first_page says so)",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			cat := env.Competitor.Catalog()
			ctx, p := listContext(ctx, cat, env.Opts.PageSize)
			ns, n := env.Dataset.Leaf()
			p["leaf_tables"] = n
			want := n
			if size, paged := p["page_size"].(int); paged {
				want = min(size, n)
			} else {
				want = min(env.Opts.PageSize, n)
				if want <= 0 {
					want = min(ListPageSize, n)
				}
				p["first_page"] = "the whole namespace: the client does not page"
			}
			p["first_page_tables"] = want
			return Outcome{M: readLatency(ctx, env.Opts, firstPageOp(cat, ns, want)), Params: p}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "namespace_exists.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 102,
			Doc:   "namespace existence checks, half hits and half misses; a wrong answer is an error",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			op := namespaceExistsOp(env.Competitor.Catalog(), env.Dataset, env.Opts.LatencyOps)
			return Outcome{M: readLatency(ctx, env.Opts, op), Params: map[string]any{"hit_ratio": 0.5}}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "load_namespace.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 103,
			Doc:   "load a namespace's properties, over every namespace of the dataset",
			Needs: []bench.Requirement{NeedDataset},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			op := loadNamespaceOp(env.Competitor.Catalog(), env.Dataset, env.Opts.LatencyOps)
			return Outcome{M: readLatency(ctx, env.Opts, op)}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "update_namespace_properties.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 104,
			Doc:   "set one property of a leaf namespace, round robin over the leaves",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			op := updateNamespaceOp(env.Competitor.Catalog(), env.Dataset.Leaves(), env.Round)
			return Outcome{M: writeLatency(ctx, env.Opts, op)}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "catalog_crawl", Kind: bench.KindLatency, Metric: results.OpsSec, Order: 109,
			Doc: "what a BI tool does: list every namespace, list every table, load every table, one call after another; " +
				"duration_s is the crawl's wall time, the histogram is per call",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			cat := env.Competitor.Catalog()
			ctx, p := listContext(ctx, cat, env.Opts.PageSize)
			c := &crawler{cat: cat, rec: results.NewRecorder()}
			endWindow := beginWindow(ctx)
			c0, gc0 := results.SnapshotFrom(ctx), results.ReadGC()
			start := time.Now()
			nss, tables := c.crawl(ctx, env.Dataset.Root)
			elapsed := time.Since(start)
			endWindow()
			m := Measurement{Rec: c.rec, Elapsed: elapsed, FirstErr: c.firstErr, CountedOps: c.rec.Count() + c.rec.Errors()}
			m.Counters.Add(c0, results.SnapshotFrom(ctx))
			gc := results.GCMeasures(gc0, results.ReadGC())
			if m.FirstErr == nil && tables < len(env.Dataset.Tables) {
				c.rec.Error()
				m.FirstErr = fmt.Errorf("crawl: loaded %d tables, the dataset holds %d", tables, len(env.Dataset.Tables))
			}
			p["crawl_s"] = elapsed.Seconds()
			p["crawl_namespaces"] = nss
			p["crawl_tables"] = tables
			p["crawl_scope"] = "the dataset's root namespace and everything under it"
			return Outcome{M: m, Params: p, Measures: gc}, nil
		},
	})
}
