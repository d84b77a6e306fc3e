package bench

import "context"

// Cell is one thing a benchmark measures on every lane, round by round: a
// catalog scenario on every competitor, an S3 (op, size, concurrency) on
// every transport, a data-plane scenario on every (competitor, transport)
// lane. RunCells drives every kind through the same loop.
type Cell interface {
	// Start prepares the cell on every lane before its first round (a
	// warm-up, say); an error stops the run.
	Start(ctx context.Context) error
	// Round measures round round on lane lane. A failed operation is
	// counted on the cell's line, never returned: an error stops the run.
	Round(ctx context.Context, round, lane int) error
	// Finish runs after the cell's last round: untimed checks, its lines.
	Finish(ctx context.Context) error
}

// CellFuncs adapts functions to a Cell; a nil function does nothing.
type CellFuncs struct {
	StartFunc  func(ctx context.Context) error
	RoundFunc  func(ctx context.Context, round, lane int) error
	FinishFunc func(ctx context.Context) error
}

var _ Cell = CellFuncs{}

// Start calls StartFunc.
func (c CellFuncs) Start(ctx context.Context) error {
	if c.StartFunc == nil {
		return nil
	}
	return c.StartFunc(ctx)
}

// Round calls RoundFunc.
func (c CellFuncs) Round(ctx context.Context, round, lane int) error {
	if c.RoundFunc == nil {
		return nil
	}
	return c.RoundFunc(ctx, round, lane)
}

// Finish calls FinishFunc.
func (c CellFuncs) Finish(ctx context.Context) error {
	if c.FinishFunc == nil {
		return nil
	}
	return c.FinishFunc(ctx)
}

// RunCells is the one measuring loop of every katbench benchmark: for
// each cell in order, Start, then rounds rounds over lanes lanes
// interleaved (see Interleave), then Finish. After every round it reports
// the measurements done of the plan's lanes × rounds × cells to p under
// task (nothing when p is nil). It stops at the first error, or when ctx
// is done after a round, and returns why.
func RunCells(ctx context.Context, cells []Cell, lanes, rounds int, p Progress, task string) error {
	total, done := len(cells)*lanes*rounds, 0
	Step(p, task, done, total)
	for _, c := range cells {
		if err := c.Start(ctx); err != nil {
			return err
		}
		err := Interleave(rounds, lanes, func(round, lane int) error {
			if err := c.Round(ctx, round, lane); err != nil {
				return err
			}
			done++
			Step(p, task, done, total)
			return ctx.Err()
		})
		if err != nil {
			return err
		}
		if err := c.Finish(ctx); err != nil {
			return err
		}
	}
	return nil
}
