package scenarios_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
	"github.com/nordisk/katbench/workload"
)

func mixOptions(t *testing.T, mix string) scenarios.Options {
	t.Helper()
	o := tinyOptions()
	o.Rate = 0
	o.Threads = []int{4}
	o.Duration = 150 * time.Millisecond
	m, err := workload.ParseMix(mix)
	if err != nil {
		t.Fatal(err)
	}
	o.Workload = &workload.Workload{Mix: m, Seed: 7}
	return o
}

func runMix(t *testing.T, o scenarios.Options, targets ...string) map[string]results.Record {
	t.Helper()
	var coll results.Collector
	var ts []scenarios.CompetitorSetup
	for _, name := range targets {
		ts = append(ts, target(t, name))
	}
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	runIDs := map[string]bool{}
	for _, rec := range coll.Records {
		runIDs[rec.RunID] = true
	}
	if len(runIDs) != 1 {
		t.Fatalf("lines of one run carry %d run ids", len(runIDs))
	}
	return byKey(coll.Records)
}

// TestMixClosedLoopLines runs a custom mix of every operation closed-loop
// on the embedded catalog: one line per operation, named after its
// scenario, and a mix line whose histogram is the sum of theirs.
func TestMixClosedLoopLines(t *testing.T) {
	o := mixOptions(t, "load_table=50,table_exists=20,commit_table=15,create_table=5,list_tables=5,list_namespaces=5")
	got := runMix(t, o, "embedded")
	var sum int64
	for _, sc := range []string{"load_table.latency", "table_exists.latency", "commit_table.latency", "create_table.latency", "list_tables.latency", "list_namespaces.latency"} {
		rec, ok := got["embedded "+sc]
		if !ok {
			t.Fatalf("no %s line; lines: %v", sc, keys(got))
		}
		if rec.Skipped != "" || rec.Ops == 0 || rec.Errors != 0 || rec.Kind != "mix" || rec.Loop != results.Closed || rec.Threads != 4 || len(rec.Dims) != 1 || rec.Dims[results.DimThreads] != 4 {
			t.Fatalf("%s: skipped %q ops %d errors %d (%s) kind %q loop %q threads %d dims %v", sc, rec.Skipped, rec.Ops, rec.Errors, rec.FirstError, rec.Kind, rec.Loop, rec.Threads, rec.Dims)
		}
		if rec.Params["mix"] != "custom" || rec.Params["keys"] != "uniform" || rec.Params["seed"] != 7.0 && rec.Params["seed"] != uint64(7) {
			t.Fatalf("%s: params %v", sc, rec.Params)
		}
		sum += rec.Ops
	}
	commit := got["embedded commit_table.latency"]
	if _, ok := commit.Params["commit_conflicts"]; !ok {
		t.Fatalf("commit line without conflicts: %v", commit.Params)
	}
	mix := got["embedded mix.custom"]
	if mix.Ops != sum || mix.Errors != 0 || mix.Metric != results.OpsSec || mix.Hist == "" || mix.WarmupErrors == nil {
		t.Fatalf("mix line: ops %d (operations' sum %d) errors %d metric %s", mix.Ops, sum, mix.Errors, mix.Metric)
	}
	// The weights shape the operations' shares (±10 points on a few
	// hundred operations).
	if share := float64(got["embedded load_table.latency"].Ops) / float64(sum); share < 0.4 || share > 0.6 {
		t.Fatalf("load_table share %.2f, want ≈ 0.50", share)
	}
}

// TestMixOpenLoopLines runs read-heavy at a rate with Poisson arrivals on
// two competitors: every operation due is accounted for.
func TestMixOpenLoopLines(t *testing.T) {
	o := mixOptions(t, "read-heavy")
	o.Rate, o.OpenWorkers, o.Duration = 2000, 8, 200*time.Millisecond
	o.Workload.Arrivals = pacer.Poisson
	got := runMix(t, o, "embedded", "sql")
	for _, tg := range []string{"embedded", "sql"} {
		mix := got[tg+" mix.read-heavy"]
		if mix.Skipped != "" || mix.Loop != results.Open || mix.Metric != results.P50 {
			t.Fatalf("%s mix line: %+v", tg, mix)
		}
		if mix.Ops+mix.Errors != 400 {
			t.Fatalf("%s: %d ops + %d errors, want the 400 due in 200 ms at 2000/s", tg, mix.Ops, mix.Errors)
		}
		if mix.Params["arrivals"] != "poisson" || mix.Params["rate"] != 2000.0 {
			t.Fatalf("%s: params %v", tg, mix.Params)
		}
		var sum int64
		for _, sc := range []string{"load_table.latency", "table_exists.latency", "commit_table.latency"} {
			rec := got[tg+" "+sc]
			if rec.Loop != results.Open || rec.Params["mix"] != "read-heavy" {
				t.Fatalf("%s %s: loop %q params %v", tg, sc, rec.Loop, rec.Params)
			}
			sum += rec.Ops + rec.Errors
		}
		if sum != 400 {
			t.Fatalf("%s: the operations' lines hold %d operations, want 400", tg, sum)
		}
	}
}

// TestMixCommitStormConflicts: eight writers on one hot table lose races;
// every lost race is a conflict retried, never an error or a success.
func TestMixCommitStormConflicts(t *testing.T) {
	o := mixOptions(t, "commit-storm")
	o.Threads = []int{8}
	o.Duration = 300 * time.Millisecond
	count := func(rec results.Record, name string) int64 {
		switch v := rec.Params[name].(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		}
		t.Fatalf("commit line without %s: %v", name, rec.Params)
		return 0
	}
	var conflicts int64
	for attempt := 0; attempt < 5 && conflicts == 0; attempt++ {
		got := runMix(t, o, "embedded")
		commit := got["embedded commit_table.latency"]
		if commit.Errors != 0 || commit.Ops == 0 || commit.Params["keys"] != "hotspot:0.02:1" {
			t.Fatalf("commit line: ops %d errors %d (%s) params %v", commit.Ops, commit.Errors, commit.FirstError, commit.Params)
		}
		conflicts = count(commit, "commit_conflicts")
		if conflicts == 0 {
			continue
		}
		// Every lost race was retried: some operation took more than one
		// attempt, and no more operations were retried than races lost.
		retried, most := count(commit, "commit_retried_ops"), count(commit, "commit_max_attempts")
		if retried == 0 || retried > conflicts || most < 2 {
			t.Fatalf("%d conflicts but %d retried operations, at most %d attempts", conflicts, retried, most)
		}
		if mix := got["embedded mix.commit-storm"]; count(mix, "commit_conflicts") != conflicts || mix.Errors != 0 {
			t.Fatalf("mix line: conflicts %v errors %d, want the commit line's %d and none", mix.Params["commit_conflicts"], mix.Errors, conflicts)
		}
	}
	if conflicts == 0 {
		t.Fatal("eight writers on one table never conflicted in five runs")
	}
}

func keys(m map[string]results.Record) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestMixRoundsInterleaveTargets: a mix's rounds run through the engine's
// loop like the scenarios': round 1 on every target, round 2 in reverse,
// round 3 in the first order, and each target's lines carry every round.
func TestMixRoundsInterleaveTargets(t *testing.T) {
	o := mixOptions(t, "load_table=80,table_exists=20")
	o.Rounds = 3
	o.Duration = 50 * time.Millisecond
	var log bytes.Buffer
	o.Log = &log
	got := runMix(t, o, "embedded", "sql")
	var order []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, ": mix custom (round") {
			order = append(order, strings.SplitN(l, ":", 2)[0])
		}
	}
	if g := strings.Join(order, " "); g != "embedded sql sql embedded embedded sql" {
		t.Errorf("round order = %q, want embedded sql / sql embedded / embedded sql", g)
	}
	for _, target := range []string{"embedded", "sql"} {
		mix, ok := got[target+" mix.custom"]
		if !ok || mix.Rounds != 3 || len(mix.RoundOpsSec) != 3 {
			t.Errorf("%s mix line: present %v, rounds %d, round_ops_sec %v; want 3 rounds", target, ok, mix.Rounds, mix.RoundOpsSec)
		}
	}
}
