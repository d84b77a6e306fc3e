package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// The view scenarios, for competitors with the ViewCatalog capability
// (every REST catalog through iceberg-go's client, and the embedded
// catalog). Each works on a set of views made before it measures —
// Options.ViewsPerLeaf in every leaf namespace of the dataset — and drops
// them again when it is done, so every scenario sees the same set.

// NeedViews: the competitor serves views through an interface katbench
// can drive.
var NeedViews = func() bench.Requirement {
	r := Capability[competitors.ViewCatalog]("competitor's catalog client has no view support katbench can drive")
	r.Explain = func(env any) string {
		c := env.(*Env).Competitor
		return fmt.Sprintf("%s's catalog client (%T) has no view support katbench can drive "+
			"(iceberg-go's SQL catalog makes views from SQL text only and cannot replace them; our gRPC front serves no views)",
			c.Name(), c.Catalog())
	}
	return r
}()

// ViewsPerLeaf is the number of views the view scenarios make per leaf
// namespace when Options.ViewsPerLeaf is 0: 2 for --quick, 10 otherwise.
func ViewsPerLeaf(o Options) int {
	switch {
	case o.ViewsPerLeaf > 0:
		return o.ViewsPerLeaf
	case o.Quick:
		return 2
	}
	return 10
}

// viewSQL is the text of version n of every view katbench makes.
func viewSQL(n int) string { return fmt.Sprintf("SELECT id, ts FROM t000000 WHERE id > %d", n) }

// newViewVersion is version id of a view in ns.
func newViewVersion(id int64, n int, ns table.Identifier) (*view.Version, error) {
	v, err := view.NewVersionFromSQL(id, dataset.Schema.ID, viewSQL(n), ns)
	if err != nil {
		return nil, fmt.Errorf("view version: %w", err)
	}
	return v, nil
}

// viewSet is the views one scenario round made.
type viewSet struct {
	ids   []table.Identifier
	uuids []uuid.UUID
	// perLeaf is the number of views in each leaf.
	perLeaf int
}

// makeViews creates ViewsPerLeaf views in every leaf of the dataset. On
// error it drops what it made.
func makeViews(ctx context.Context, vc competitors.ViewCatalog, env *Env) (*viewSet, error) {
	s := &viewSet{perLeaf: ViewsPerLeaf(env.Opts)}
	for _, leaf := range env.Dataset.Leaves() {
		for j := range s.perLeaf {
			id := append(append(table.Identifier{}, leaf...), fmt.Sprintf("view_r%d_%03d", env.Round, j))
			ver, err := newViewVersion(1, 0, leaf)
			if err != nil {
				return nil, errors.Join(err, s.drop(vc))
			}
			v, err := vc.CreateView(ctx, id, ver, dataset.Schema)
			if err != nil {
				return nil, errors.Join(fmt.Errorf("create view %s: %w", strings.Join(id, "."), err), s.drop(vc))
			}
			s.ids = append(s.ids, id)
			s.uuids = append(s.uuids, v.Metadata().ViewUUID())
		}
	}
	if len(s.ids) == 0 {
		return nil, errors.New("no leaf namespace to make views in")
	}
	return s, nil
}

// drop removes the set's views, on a context of its own so that a
// cancelled run still leaves none behind.
func (s *viewSet) drop(vc competitors.ViewCatalog) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var errs []error
	for _, id := range s.ids {
		if err := vc.DropView(ctx, id); err != nil && !errors.Is(err, icecatalog.ErrNoSuchView) {
			errs = append(errs, fmt.Errorf("drop view %s: %w", strings.Join(id, "."), err))
		}
	}
	s.ids = nil
	return errors.Join(errs...)
}

// withViews runs measure on a fresh view set and drops the set. A set that
// cannot be made is a skip carrying the competitor's error; one that
// cannot be dropped fails the run, which would otherwise leave it behind.
func withViews(ctx context.Context, env *Env, measure func(vc competitors.ViewCatalog, s *viewSet) Outcome) (Outcome, error) {
	vc, _ := competitors.As[competitors.ViewCatalog](env.Competitor)
	s, err := makeViews(ctx, vc, env)
	if err != nil {
		return Outcome{}, Skip("make views: " + err.Error())
	}
	out := measure(vc, s)
	if err := s.drop(vc); err != nil {
		return Outcome{}, err
	}
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	out.Params["views_per_leaf"] = s.perLeaf
	return out, nil
}

func loadViewOp(vc competitors.ViewCatalog, s *viewSet, n int) Op {
	order := picks(min(max(n, 1), 1<<16), len(s.ids))
	return func(ctx context.Context, _, i int) error {
		id := s.ids[order[i%len(order)]]
		v, err := vc.LoadView(ctx, id)
		if err != nil {
			return fmt.Errorf("load view %s: %w", strings.Join(id, "."), err)
		}
		if v.CurrentVersion() == nil {
			return fmt.Errorf("load view %s: no current version", strings.Join(id, "."))
		}
		return nil
	}
}

// viewExistsOp alternates hits and misses.
func viewExistsOp(vc competitors.ViewCatalog, s *viewSet, n int) Op {
	order := picks(min(max(n, 1), 1<<16), len(s.ids))
	return func(ctx context.Context, _, i int) error {
		hit := i%2 == 0
		id := s.ids[order[i%len(order)]]
		if !hit {
			id = append(append(table.Identifier{}, id[:len(id)-1]...), fmt.Sprintf("missing_view_%03d", i%256))
		}
		ok, err := vc.CheckViewExists(ctx, id)
		if err == nil && ok != hit {
			err = fmt.Errorf("view_exists %s: got %v, want %v", strings.Join(id, "."), ok, hit)
		}
		return err
	}
}

// listViewsOp lists the views of one leaf and checks the count.
func listViewsOp(vc competitors.ViewCatalog, ns table.Identifier, want int) Op {
	return func(ctx context.Context, _, _ int) error {
		n := 0
		for _, err := range vc.ListViews(ctx, ns) {
			if err != nil {
				return fmt.Errorf("list views %s: %w", dataset.NamespaceString(ns), err)
			}
			n++
		}
		if n != want {
			return fmt.Errorf("list views %s: got %d, want %d", dataset.NamespaceString(ns), n, want)
		}
		return nil
	}
}

// replaceViewOp commits a new version (new SQL) to a view of the set per
// operation, round robin, guarded by the view's UUID. One worker only.
func replaceViewOp(vc competitors.ViewCatalog, s *viewSet) Op {
	return func(ctx context.Context, _, i int) error {
		k := i % len(s.ids)
		id := s.ids[k]
		ver, err := newViewVersion(int64(i/len(s.ids)+2), i+1, id[:len(id)-1])
		if err != nil {
			return err
		}
		v, err := vc.UpdateView(ctx, id, []view.Requirement{view.AssertViewUUID(s.uuids[k])},
			[]view.Update{view.NewAddViewVersionUpdate(ver), view.NewSetCurrentVersionUpdate(-1)})
		if err != nil {
			return fmt.Errorf("replace view %s: %w", strings.Join(id, "."), err)
		}
		if cur := v.CurrentVersion(); cur == nil || len(cur.Representations) == 0 || cur.Representations[0].Sql != viewSQL(i+1) {
			return fmt.Errorf("replace view %s: the answer's current version is not the one committed", strings.Join(id, "."))
		}
		return nil
	}
}

func init() {
	needs := []bench.Requirement{NeedDataset, NeedTables, NeedViews}
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "create_view.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 110,
			Doc:   "create a view in the dataset's work namespace",
			Needs: needs,
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			vc, _ := competitors.As[competitors.ViewCatalog](env.Competitor)
			// A client can have the methods and the server not serve them
			// (iceberg-go refuses endpoints a server's config does not
			// list): one unmeasured view made and dropped tells.
			if s, err := makeViews(ctx, vc, env); err != nil {
				return Outcome{}, Skip("make views: " + err.Error())
			} else if err := s.drop(vc); err != nil {
				return Outcome{}, err
			}
			made := &viewSet{}
			ns := env.Dataset.Work
			op := func(ctx context.Context, _, i int) error {
				id := append(append(table.Identifier{}, ns...), fmt.Sprintf("create_view_r%d_%06d", env.Round, i))
				ver, err := newViewVersion(1, 0, ns)
				if err != nil {
					return err
				}
				if _, err := vc.CreateView(ctx, id, ver, dataset.Schema); err != nil {
					return fmt.Errorf("create view %s: %w", strings.Join(id, "."), err)
				}
				made.ids = append(made.ids, id)
				return nil
			}
			m := writeLatency(ctx, env.Opts, op)
			if err := made.drop(vc); err != nil {
				return Outcome{}, err
			}
			return Outcome{M: m}, nil
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "load_view.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 111,
			Doc:   "load a view, over a set of views in every leaf namespace (--views-per-leaf)",
			Needs: needs,
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return withViews(ctx, env, func(vc competitors.ViewCatalog, s *viewSet) Outcome {
				return Outcome{M: readLatency(ctx, env.Opts, loadViewOp(vc, s, env.Opts.LatencyOps))}
			})
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "view_exists.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 112,
			Doc:   "view existence checks, half hits and half misses; a wrong answer is an error",
			Needs: needs,
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return withViews(ctx, env, func(vc competitors.ViewCatalog, s *viewSet) Outcome {
				return Outcome{M: readLatency(ctx, env.Opts, viewExistsOp(vc, s, env.Opts.LatencyOps)),
					Params: map[string]any{"hit_ratio": 0.5}}
			})
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "list_views.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 113,
			Doc:   "list the views of one leaf namespace, every page",
			Needs: needs,
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return withViews(ctx, env, func(vc competitors.ViewCatalog, s *viewSet) Outcome {
				lctx, p := listContext(ctx, env.Competitor.Catalog(), env.Opts.PageSize)
				op := listViewsOp(vc, s.ids[0][:len(s.ids[0])-1], s.perLeaf)
				return Outcome{M: readLatency(lctx, env.Opts, op), Params: p}
			})
		},
	})
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "replace_view.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 114,
			Doc:   "replace a view: commit a new view version guarded by the view UUID, round robin over the view set",
			Needs: needs,
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			return withViews(ctx, env, func(vc competitors.ViewCatalog, s *viewSet) Outcome {
				return Outcome{M: writeLatency(ctx, env.Opts, replaceViewOp(vc, s))}
			})
		},
	})
}
