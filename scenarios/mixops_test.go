package scenarios

import (
	"slices"
	"sort"
	"testing"

	"github.com/nordisk/katbench/workload"
)

// TestMixOpsImplemented: every operation a mix can weigh runs on a
// competitor, and none runs that a mix cannot name.
func TestMixOpsImplemented(t *testing.T) {
	var here []string
	for name := range mixOps {
		here = append(here, name)
	}
	sort.Strings(here)
	if want := workload.MixOps(); !slices.Equal(here, want) {
		t.Fatalf("mix operations implemented %v, want workload.MixOps() %v", here, want)
	}
	for _, name := range here {
		op, _ := workload.LookupOp(name)
		if _, ok := Lookup(op.Scenario, nil); !ok {
			t.Errorf("mix operation %s names its lines %q, which is no scenario", name, op.Scenario)
		}
	}
}
