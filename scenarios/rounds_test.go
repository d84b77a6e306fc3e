package scenarios_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// TestRoundsInterleaveTargets: with --rounds 3 every target does round 1 of
// a scenario, then the targets in reverse do round 2, then round 3 in the
// first order; each line merges its rounds' histograms and keeps each
// round's p50 and ops/s.
func TestRoundsInterleaveTargets(t *testing.T) {
	o := tinyOptions()
	o.Rounds = 3
	o.Select, _ = scenarios.ParseSelector("table_exists.latency,load_table.throughput.t2", o.Threads)
	var log bytes.Buffer
	o.Log = &log
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{target(t, "embedded"), target(t, "sql")}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "table_exists.latency (round") {
			order = append(order, strings.SplitN(l, ":", 2)[0])
		}
	}
	if got := strings.Join(order, " "); got != "embedded sql sql embedded embedded sql" {
		t.Errorf("round order = %q, want embedded sql / sql embedded / embedded sql", got)
	}
	for _, rec := range coll.Records {
		if rec.Rounds != 3 || len(rec.RoundP50US) != 3 || len(rec.RoundOpsSec) != 3 {
			t.Errorf("%s %s: rounds %d, round_p50_us %v, round_ops_sec %v", rec.Target, rec.Scenario, rec.Rounds, rec.RoundP50US, rec.RoundOpsSec)
			continue
		}
		for i := range 3 {
			if math.IsNaN(rec.RoundP50US[i]) || rec.RoundP50US[i] <= 0 || rec.RoundOpsSec[i] <= 0 {
				t.Errorf("%s %s round %d: p50 %v ops/s %v", rec.Target, rec.Scenario, i, rec.RoundP50US[i], rec.RoundOpsSec[i])
			}
		}
		h, err := results.DecodeHist(rec.Hist)
		if err != nil || h.Count() != rec.Ops {
			t.Errorf("%s %s: hist %v (%v), want the %d ops of all rounds", rec.Target, rec.Scenario, h, err, rec.Ops)
		}
		if rec.Scenario == "table_exists.latency" && rec.Ops != 3*int64(o.LatencyOps) {
			t.Errorf("%s table_exists: ops %d, want 3 rounds × %d", rec.Target, rec.Ops, o.LatencyOps)
		}
	}
}
