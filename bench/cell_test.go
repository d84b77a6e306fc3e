package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestRunCells: every cell starts, measures its rounds with the lanes
// interleaved (A B, B A, A B), finishes, in plan order; progress counts
// every round of the plan; an error stops the run there.
func TestRunCells(t *testing.T) {
	var calls []string
	cell := func(name string) Cell {
		return CellFuncs{
			StartFunc: func(context.Context) error { calls = append(calls, name+" start"); return nil },
			RoundFunc: func(_ context.Context, r, l int) error {
				calls = append(calls, fmt.Sprintf("%s r%d l%d", name, r, l))
				return nil
			},
			FinishFunc: func(context.Context) error { calls = append(calls, name+" finish"); return nil },
		}
	}
	var steps []string
	p := func(what string, done, total int) { steps = append(steps, fmt.Sprintf("%s %d/%d", what, done, total)) }
	if err := RunCells(context.Background(), []Cell{cell("x"), cell("y")}, 2, 3, p, "all"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"x start", "x r0 l0", "x r0 l1", "x r1 l1", "x r1 l0", "x r2 l0", "x r2 l1", "x finish",
		"y start", "y r0 l0", "y r0 l1", "y r1 l1", "y r1 l0", "y r2 l0", "y r2 l1", "y finish",
	}
	if !slices.Equal(calls, want) {
		t.Errorf("calls\n%v\nwant\n%v", calls, want)
	}
	if len(steps) != 13 || steps[0] != "all 0/12" || steps[12] != "all 12/12" {
		t.Errorf("progress %v, want 0/12 … 12/12", steps)
	}

	calls, steps = nil, nil
	boom := errors.New("boom")
	bad := CellFuncs{RoundFunc: func(_ context.Context, r, l int) error {
		if r == 1 {
			return boom
		}
		return nil
	}}
	if err := RunCells(context.Background(), []Cell{bad, cell("z")}, 2, 3, p, "all"); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if len(calls) != 0 || steps[len(steps)-1] != "all 2/12" {
		t.Errorf("after the error: calls %v, progress %v; want nothing more run, 2 of 12 done", calls, steps)
	}
}

// TestLane: the order of Interleave one round at a time — forward on even
// rounds, reversed on odd ones.
func TestLane(t *testing.T) {
	for _, c := range []struct{ round, want []int }{
		{[]int{0, 2}, []int{0, 1, 2}},
		{[]int{1, 3}, []int{2, 1, 0}},
	} {
		for _, round := range c.round {
			var got []int
			for j := range 3 {
				got = append(got, Lane(round, j, 3))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("round %d: lanes %v, want %v", round, got, c.want)
			}
		}
	}
}
