package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// sweep measures plan at every size of the growth sweep in turn: before
// each size after the first, every competitor's dataset grows to it
// (Dataset.Grow reuses the tables of the size before). A competitor whose
// setup fails or runs out of SetupBudget stops growing; its lines at the
// sizes it did not reach are skipped with where and why it stopped.
func (r *Runner) sweep(ctx context.Context, states []*state, plan []Scenario) error {
	o := r.Opts
	defer func() { r.size, r.sizeIdx = 0, 0 }()
	for k, size := range o.Sizes {
		if k > 0 {
			for _, s := range states {
				r.grow(ctx, s, size)
				if ctx.Err() != nil {
					return ctx.Err()
				}
			}
		}
		for _, s := range states {
			if s.stopped == "" && s.setup == nil && s.d != nil && len(s.d.Tables) < size && s.d.TablesErr != nil {
				s.stopped = fmt.Sprintf("setup stopped at %d of %d tables: %v", len(s.d.Tables), size, s.d.TablesErr)
			}
		}
		r.size, r.sizeIdx = size, k
		r.logf("growth sweep: measuring at %s tables (%d of %d sizes)", results.CountName(int64(size)), k+1, len(o.Sizes))
		task := fmt.Sprintf("%s @%s tables", bench.OverallTask, results.CountName(int64(size)))
		if err := bench.RunCells(ctx, r.cells(states, plan), len(states), o.Rounds, o.Progress, task); err != nil {
			return err
		}
	}
	return nil
}

// grow brings s's dataset to size tables, within what is left of the
// setup budget.
func (r *Runner) grow(ctx context.Context, s *state, size int) {
	if s.stopped != "" || s.setup != nil || s.d == nil {
		return
	}
	shape := dataset.SweepShape(r.Opts.Sizes, size, r.Opts.PerNamespace)
	r.logf("%s: growing the dataset to %d tables (%+v)", s.c.Name(), shape.Tables(), shape)
	gctx, cancel := r.setupContext(ctx, s)
	defer cancel()
	t0 := time.Now()
	progress := prefixed(r.Opts.Progress, s.c.Name())
	var err error
	if bulk, ok := competitors.As[competitors.BulkCreator](s.c); ok {
		s.bulk = true
		err = s.d.GrowBulk(gctx, s.c.Catalog(), bulk, shape, s.parallel, progress)
	} else {
		err = s.d.Grow(gctx, s.c.Catalog(), shape, s.parallel, progress)
	}
	s.setupDur += time.Since(t0)
	switch {
	case err == nil:
		r.logf("%s: %d tables after %s of setup", s.c.Name(), len(s.d.Tables), s.setupDur.Round(time.Second))
	case ctx.Err() != nil:
	case errors.Is(err, context.DeadlineExceeded) || gctx.Err() != nil:
		s.stopped = fmt.Sprintf("setup stopped at %d tables: --setup-budget %v spent", len(s.d.Tables), r.Opts.SetupBudget)
	default:
		s.stopped = fmt.Sprintf("setup stopped at %d tables: %v", len(s.d.Tables), err)
	}
	if s.stopped != "" {
		r.logf("%s: %s", s.c.Name(), s.stopped)
	}
}

// setupContext bounds s's setup by what is left of Opts.SetupBudget (no
// bound when it is 0).
func (r *Runner) setupContext(ctx context.Context, s *state) (context.Context, context.CancelFunc) {
	if r.Opts.SetupBudget <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, r.Opts.SetupBudget-s.setupDur)
}
