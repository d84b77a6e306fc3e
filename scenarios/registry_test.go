package scenarios_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// workersSeen is the highest worker index + 1 the test scenario observed.
var workersSeen atomic.Int64

// A scenario added in one file: registered here, it runs on every
// competitor of every runner test in this package like a built-in.
func init() {
	scenarios.Register(scenarios.Scenario{
		Scenario: bench.Scenario{
			Name: "test.noop", Kind: bench.KindThroughput, Metric: results.OpsSec, Levels: true, Order: 45,
			Doc: "a no-op on N workers (registered by a test)",
		},
		Run: func(ctx context.Context, env *scenarios.Env) (scenarios.Outcome, error) {
			op := func(_ context.Context, w, _ int) error {
				for {
					seen := workersSeen.Load()
					if int64(w+1) <= seen || workersSeen.CompareAndSwap(seen, int64(w+1)) {
						return nil
					}
				}
			}
			return scenarios.Outcome{M: scenarios.Throughput(ctx, op, env.Threads, 0, env.Opts.Duration),
				Params: map[string]any{"level": env.Threads}}, nil
		},
	})
}

// TestRegisteredScenarioRunsWithItsData: a scenario registered from its own
// file runs once per thread level with the level's worker count taken from
// its registration (not from its name), and its line carries its kind and
// metric direction.
func TestRegisteredScenarioRunsWithItsData(t *testing.T) {
	o := tinyOptions()
	o.Threads = []int{3}
	sel, err := scenarios.ParseSelector("test.noop.*", o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	workersSeen.Store(0)
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded")}); err != nil {
		t.Fatal(err)
	}
	if len(coll.Records) != 1 {
		t.Fatalf("lines = %d, want 1: %+v", len(coll.Records), coll.Records)
	}
	rec := coll.Records[0]
	if rec.Scenario != "test.noop.t3" || rec.Threads != 3 || rec.Params["level"] != 3 || workersSeen.Load() != 3 {
		t.Errorf("scenario %s threads %d level %v workers %d, want test.noop.t3 on 3 workers",
			rec.Scenario, rec.Threads, rec.Params["level"], workersSeen.Load())
	}
	if rec.Kind != "throughput" || rec.Metric != results.OpsSec || rec.Better != results.Higher {
		t.Errorf("kind/metric/better = %s/%s/%s, want throughput/ops_sec/higher", rec.Kind, rec.Metric, rec.Better)
	}
	if sc, ok := scenarios.Lookup("test.noop.t8", nil); !ok || sc.Threads != 8 {
		t.Errorf("Lookup(test.noop.t8) = %+v, %v; want the t8 level", sc, ok)
	}
}

func TestRegisterRejectsBadEntries(t *testing.T) {
	run := func(context.Context, *scenarios.Env) (scenarios.Outcome, error) { return scenarios.Outcome{}, nil }
	for _, c := range []struct {
		name string
		s    scenarios.Scenario
	}{
		{"duplicate", scenarios.Scenario{Scenario: bench.Scenario{Name: "load_table.latency", Kind: bench.KindLatency, Metric: results.P50}, Run: run}},
		{"no run", scenarios.Scenario{Scenario: bench.Scenario{Name: "x.norun", Kind: bench.KindLatency, Metric: results.P50}}},
		{"bad kind", scenarios.Scenario{Scenario: bench.Scenario{Name: "x.kind", Kind: "fast", Metric: results.P50}, Run: run}},
		{"bad metric", scenarios.Scenario{Scenario: bench.Scenario{Name: "x.metric", Kind: bench.KindLatency, Metric: "p42"}, Run: run}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register accepted it")
				}
			}()
			scenarios.Register(c.s)
		})
	}
}

// TestWriteScenariosSayTheyWrite: every scenario that creates or commits
// tables (the create_table.* and commit_table.* families) is marked
// Writes, and no other is, so the floor's rule (it joins a selection of
// writes alone) reads a field, not a name.
func TestWriteScenariosSayTheyWrite(t *testing.T) {
	n := 0
	for _, sc := range scenarios.Plan([]int{1, 8, 32}) {
		family := strings.HasPrefix(sc.Name, "create_table.") || strings.HasPrefix(sc.Name, "commit_table.")
		if sc.Writes != family {
			t.Errorf("%s: Writes %v", sc.Name, sc.Writes)
		}
		if sc.Writes {
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d write scenarios planned", n)
	}
}
