package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// A catalog scenario in one file: namespace existence checks of the
// dataset's root, a fixed number of calls per round.

const (
	extScenarioName = "ext_root_exists.latency"
	extScenarioOps  = 40
)

func init() {
	scenarios.Register(scenarios.Scenario{
		Scenario: bench.Scenario{
			Name: extScenarioName, Kind: bench.KindLatency, Metric: results.P50, Order: 99,
			Doc:   "does the dataset's root namespace exist, asked 40 times (a test extension)",
			Needs: []bench.Requirement{scenarios.NeedDataset},
		},
		Run: func(ctx context.Context, env *scenarios.Env) (scenarios.Outcome, error) {
			cat, root := env.Competitor.Catalog(), env.Dataset.Root
			rec := results.NewRecorder()
			var first error
			start := time.Now()
			for range extScenarioOps {
				t0 := time.Now()
				ok, err := cat.CheckNamespaceExists(ctx, root)
				if err == nil && !ok {
					err = errNamespaceMissing
				}
				if err != nil {
					rec.Error()
					if first == nil {
						first = err
					}
					continue
				}
				rec.Record(time.Since(t0))
			}
			return scenarios.Outcome{
				M:      scenarios.Measurement{Rec: rec, Elapsed: time.Since(start), FirstErr: first},
				Params: map[string]any{"ext_calls": extScenarioOps},
			}, nil
		},
	})
}

var errNamespaceMissing = errors.New("the dataset's root namespace does not exist")

func TestExtScenario(t *testing.T) {
	if list := extList(t); !strings.Contains(list, extScenarioName+" ") || !strings.Contains(list, "asked 40 times") {
		t.Errorf("list does not show %s with its description:\n%s", extScenarioName, list)
	}
	lines := extLines(t, nil, extScenarioName, "run", "embedded", "sql", "--quick", "--scenario", extScenarioName)
	targets := map[any]bool{}
	for _, l := range lines {
		targets[l["target"]] = true
		wantMeasured(t, l)
		if l["ops"] != float64(extScenarioOps) || l["kind"] != string(bench.KindLatency) {
			t.Errorf("%v: ops %v kind %v, want %d and latency", l["target"], l["ops"], l["kind"], extScenarioOps)
		}
		if params, _ := l["params"].(map[string]any); params["ext_calls"] != float64(extScenarioOps) {
			t.Errorf("%v: params.ext_calls %v, want %d", l["target"], params["ext_calls"], extScenarioOps)
		}
	}
	if !targets["embedded"] || !targets["sql"] || len(lines) != 2 {
		t.Errorf("lines for %v (%d lines), want one each for embedded and sql", targets, len(lines))
	}

	t.Run("misspelt", func(t *testing.T) {
		wantExtUsageError(t, nil, []string{"embedded", "--quick", "--scenario", "ext_root_exist.latency"}, "ext_root_exist.latency", extScenarioName)
	})
}
