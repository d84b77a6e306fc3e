package scenarios

import (
	"context"
	"testing"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/testenv/catalogtest"
)

// TestCreateNamespaceDropsWhatItMade: the scenario measures CreateOps
// creates without an error and leaves the work namespace as it found it.
func TestCreateNamespaceDropsWhatItMade(t *testing.T) {
	ctx := context.Background()
	cat := catalogtest.Open(t)
	d, err := dataset.Build(ctx, cat, "nsbench", dataset.Shape{Width: 2, Depth: 1, TablesPerLeaf: 2}, 2, nil)
	if err != nil || d.TablesErr != nil {
		t.Fatal(err, d.TablesErr)
	}
	o := Defaults(true)
	o.CreateOps, o.Warmup = 12, 0
	env := &Env{Competitor: &competitors.Base{TargetName: "embedded", Cat: cat}, Dataset: d, Opts: o, Round: 3}
	out, err := runCreateNamespace(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if out.M.Rec == nil {
		t.Fatal("no recorder in the measurement")
	}
	if got := out.M.Rec.Count(); got != int64(o.CreateOps) {
		t.Errorf("%d creates measured, want %d", got, o.CreateOps)
	}
	if e := out.M.Rec.Errors(); e != 0 || out.M.FirstErr != nil {
		t.Errorf("%d errors, first %v", e, out.M.FirstErr)
	}
	left, err := cat.ListNamespaces(ctx, d.Work)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("namespaces left in the work namespace: %v", left)
	}
}
