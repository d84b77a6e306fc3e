package scenarios_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/workload"
)

func capacityOptions(t *testing.T, mix, slo string) scenarios.Options {
	t.Helper()
	o := mixOptions(t, mix)
	o.Threads = nil
	o.OpenWorkers = 8
	c := workload.DefaultCapacity(true)
	s, err := workload.ParseSLO(slo)
	if err != nil {
		t.Fatal(err)
	}
	// Low rates, short steps and a loose rate-kept check: the searches'
	// logic is what these tests assert, on a machine of any speed (and
	// under the race detector).
	c.SLO, c.StartRate, c.MinRate, c.MaxRate, c.StepDuration, c.StepOps, c.Keep = s, 50, 10, 400, 200*time.Millisecond, 0, 0.5
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	o.Capacity = &c
	return o
}

func steps(t *testing.T, rec results.Record) []map[string]any {
	t.Helper()
	st, ok := rec.Params["steps"].([]workload.CapacityStep)
	if !ok {
		t.Fatalf("%s %s: steps %T", rec.Target, rec.Scenario, rec.Params["steps"])
	}
	var out []map[string]any
	for _, s := range st {
		out = append(out, map[string]any{"rate": s.Rate, "achieved": s.Achieved, "met": s.Met, "hist": s.Hist, "p99": s.Values["p99"]})
	}
	return out
}

// TestCapacityOnEmbedded searches read-heavy's capacity on the embedded
// catalog and on it behind our REST front, interleaved: step 1 on each in
// turn, then step 2 in the reverse order.
func TestCapacityOnEmbedded(t *testing.T) {
	o := capacityOptions(t, "read-heavy", "p99<=10s")
	var log bytes.Buffer
	o.Log = &log
	got := runMix(t, o, "embedded", "rest")
	bystep := map[string][]string{}
	for _, l := range strings.Split(log.String(), "\n") {
		if target, rest, ok := strings.Cut(l, ": capacity read-heavy step "); ok {
			step, _, _ := strings.Cut(rest, " ")
			bystep[step] = append(bystep[step], target)
		}
	}
	if g := strings.Join(bystep["1"], " "); g != "embedded rest" {
		t.Errorf("step 1 ran on %q, want embedded then rest", g)
	}
	if g := strings.Join(bystep["2"], " "); len(bystep["2"]) == 2 && g != "rest embedded" {
		t.Errorf("step 2 ran on %q, want the reverse order: rest then embedded", g)
	}
	for _, tg := range []string{"embedded", "rest"} {
		rec, ok := got[tg+" capacity.read-heavy"]
		if !ok || rec.Skipped != "" {
			t.Fatalf("%s: no capacity line (%v)", tg, keys(got))
		}
		if rec.Kind != "capacity" || rec.Loop != results.Open || rec.Errors != 0 || rec.Hist == "" || len(rec.Dims) != 1 || rec.Dims[results.DimThreads] != float64(rec.Threads) {
			t.Fatalf("%s: kind %q loop %q errors %d (%s) dims %v threads %d", tg, rec.Kind, rec.Loop, rec.Errors, rec.FirstError, rec.Dims, rec.Threads)
		}
		// How far each target gets depends on the machine; what the line
		// says about its steps must hold on any.
		maxRate, _ := rec.Params["max_rate"].(float64)
		st := steps(t, rec)
		if maxRate <= 0 || len(st) == 0 || st[0]["rate"] != 50.0 {
			t.Fatalf("%s: max_rate %v after steps %v (%v)", tg, rec.Params["max_rate"], st, rec.Params["search_end"])
		}
		best := 0.0
		for _, s := range st {
			met := s["achieved"].(float64) >= 0.5*s["rate"].(float64) && s["p99"].(float64) > 0 && s["p99"].(float64) <= 10e6
			if s["met"] != met || s["hist"] == "" {
				t.Fatalf("%s: step %v: met is not kept ∧ p99 ≤ 10 s", tg, s)
			}
			if met {
				best = max(best, s["rate"].(float64))
			}
		}
		if best != maxRate {
			t.Fatalf("%s: max_rate %v, but the highest step met is %v", tg, maxRate, best)
		}
		if m, ok := rec.MeasureValue("max_rate"); !ok || m != maxRate || rec.Params["rate"] != maxRate {
			t.Fatalf("%s: measure max_rate %v (%v), line rate %v: want params.max_rate %v on both", tg, m, ok, rec.Params["rate"], maxRate)
		}
		if rec.Params["slo"] != "p99<=10s,errors<=0" || !strings.HasPrefix(rec.Params["capacity_order"].(string), "interleaved") {
			t.Fatalf("%s: params %v", tg, rec.Params)
		}
	}
}

// An objective no rate meets: the line says so and states no capacity.
func TestCapacityNothingMeets(t *testing.T) {
	o := capacityOptions(t, "load_table=1", "p50<=1ns")
	got := runMix(t, o, "embedded")
	rec := got["embedded capacity.custom"]
	if _, ok := rec.Params["max_rate"]; ok || rec.OpsSec != 0 || rec.Params["capacity_note"] == nil {
		t.Fatalf("max_rate %v ops_sec %v note %v", rec.Params["max_rate"], rec.OpsSec, rec.Params["capacity_note"])
	}
	if st := steps(t, rec); len(st) != 3 {
		t.Fatalf("%d steps, want 50, 25, 12.5 (then below the 10 minimum)", len(st))
	}
}

// failingLoads is the embedded catalog whose loads fail once the dataset
// exists: a broken server, which a real one cannot be made into on cue.
type failingLoads struct {
	competitors.Competitor
	cat icecatalog.Catalog
}

type failingCatalog struct{ icecatalog.Catalog }

var errInjected = errors.New("injected load failure")

func (failingCatalog) LoadTable(context.Context, table.Identifier) (*table.Table, error) {
	return nil, errInjected
}

func (f failingLoads) Catalog() icecatalog.Catalog { return f.cat }

// A target whose loads fail: at the first step (a mix of loads) or while
// the mix is prepared (read-heavy's commits load every table first). A line
// that says so, with errors (so the run exits non-zero), and no capacity.
func TestCapacityTargetFails(t *testing.T) {
	for _, c := range []struct {
		mix, name, failed string
		steps             int
	}{
		{"load_table=1", "capacity.custom", "first step", 1},
		{"read-heavy", "capacity.read-heavy", "could not be prepared", 0},
	} {
		o := capacityOptions(t, c.mix, "p99<=1s")
		emb := target(t, "embedded")
		inner := emb.Factory.New
		emb.Factory.New = func(ctx context.Context, cfg competitors.Config) (competitors.Competitor, error) {
			c, err := inner(ctx, cfg)
			if err != nil {
				return nil, err
			}
			return failingLoads{Competitor: c, cat: failingCatalog{c.Catalog()}}, nil
		}
		var coll results.Collector
		r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
		if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{emb}); err != nil {
			t.Fatal(err)
		}
		rec := byKey(coll.Records)["embedded "+c.name]
		failed, _ := rec.Params["capacity_failed"].(string)
		if rec.Errors == 0 || !strings.Contains(failed, c.failed) || !strings.Contains(rec.FirstError, "injected") {
			t.Fatalf("%s: errors %d failed %q first error %q", c.mix, rec.Errors, failed, rec.FirstError)
		}
		if _, ok := rec.Params["max_rate"]; ok {
			t.Fatalf("%s: a failed target has a max_rate", c.mix)
		}
		if err := results.CheckErrors(coll.Records); err == nil {
			t.Fatalf("%s: a failed capacity line passes the error check", c.mix)
		}
		if st := steps(t, rec); len(st) != c.steps {
			t.Fatalf("%s: %d steps, want %d", c.mix, len(st), c.steps)
		}
	}
}
