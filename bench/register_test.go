package bench

import (
	"testing"
)

// TestRegisterBenchRejectsBadEntries: a storage bench's scenario needs a
// name, its bench and a doc line, and no name twice.
func TestRegisterBenchRejectsBadEntries(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Scenario
	}{
		{"no bench", Scenario{Name: "x.nobench", Doc: "d"}},
		{"no doc", Scenario{Name: "x.nodoc", Bench: BenchData}},
		{"bad metric", Scenario{Name: "x.benchmetric", Bench: BenchData, Doc: "d", Metric: "p42"}},
		{"duplicate", Scenario{Name: "x.twice", Bench: BenchData, Doc: "d"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "duplicate" {
				RegisterBench(c.s)
			}
			defer func() {
				if recover() == nil {
					t.Error("RegisterBench accepted it")
				}
			}()
			RegisterBench(c.s)
		})
	}
}
