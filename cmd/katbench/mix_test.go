package main

import (
	"strings"
	"testing"
)

// TestRunMixOpenLoop is `katbench run embedded rest --quick --mix
// read-heavy --rate 2000`, shortened: per target one line per operation
// and a mix line, all of one run, with the mix, keys and seed.
func TestRunMixOpenLoop(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "run", "embedded", "rest", "--quick", "--mix", "read-heavy", "--rate", "2000",
		"--duration", "500ms", "--warmup", "50ms", "--tables", "20", "--server-warmup", "0", "--format", "jsonl", "--seed", "11")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := jsonLines(t, stdout)
	got := map[string]map[string]any{}
	runs := map[any]bool{}
	for _, l := range lines {
		got[l["target"].(string)+" "+l["scenario"].(string)] = l
		runs[l["run_id"]] = true
	}
	if len(runs) != 1 || len(lines) != 8 {
		t.Fatalf("%d lines of %d runs, want 2 × (3 operations + mix) of one", len(lines), len(runs))
	}
	for _, tg := range []string{"embedded", "rest"} {
		mix := got[tg+" mix.read-heavy"]
		if mix == nil || mix["loop"] != "open" || mix["ops"].(float64)+mix["errors"].(float64) != 1000 {
			t.Fatalf("%s mix line %v", tg, mix)
		}
		for _, sc := range []string{"load_table.latency", "table_exists.latency", "commit_table.latency"} {
			l := got[tg+" "+sc]
			if l == nil {
				t.Fatalf("%s: no %s line", tg, sc)
			}
			p := l["params"].(map[string]any)
			if p["mix"] != "read-heavy" || p["keys"] != "uniform" || p["seed"] != 11.0 || l["kind"] != "mix" || l["hist"] == "" {
				t.Fatalf("%s %s: params %v", tg, sc, p)
			}
		}
		if _, ok := got[tg+" commit_table.latency"]["params"].(map[string]any)["commit_conflicts"]; !ok {
			t.Fatalf("%s: commit line without its conflicts", tg)
		}
	}
}

// TestCapacityCommand is `katbench capacity embedded rest --quick --mix
// read-heavy`, shortened and with an objective any machine meets at these
// rates (and a loose rate-kept check, for a busy machine): a capacity line
// per target with a positive max_rate and its steps.
func TestCapacityCommand(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "capacity", "embedded", "rest", "--quick", "--mix", "read-heavy", "--slo", "p99<=5s",
		"--start-rate", "50", "--max-rate", "200", "--step-duration", "300ms", "--step-ops", "0", "--warmup", "20ms", "--keep", "0.5",
		"--tables", "20", "--server-warmup", "0", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := jsonLines(t, stdout)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one capacity line per target", len(lines))
	}
	for _, l := range lines {
		p := l["params"].(map[string]any)
		steps, _ := p["steps"].([]any)
		maxRate, _ := p["max_rate"].(float64)
		if l["scenario"] != "capacity.read-heavy" || maxRate <= 0 || len(steps) == 0 || l["kind"] != "capacity" {
			t.Fatalf("%s: scenario %v max_rate %v steps %d (%v)", l["target"], l["scenario"], p["max_rate"], len(steps), p["search_end"])
		}
		first := steps[0].(map[string]any)
		if first["rate"] != 50.0 || first["hist"] == "" || first["objectives_us"].(map[string]any)["p99"] == nil {
			t.Fatalf("%s: first step %v", l["target"], first)
		}
		if p["slo"] != "p99<=5s,errors<=0" || !strings.HasPrefix(p["capacity_order"].(string), "interleaved") {
			t.Fatalf("%s: params %v", l["target"], p)
		}
	}
}

func TestMixBadInputExitsTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative weight", []string{"run", "embedded", "--mix", "load_table=-1,commit_table=2"}, "load_table"},
		{"zero total", []string{"run", "embedded", "--mix", "load_table=0,commit_table=0"}, "add up to 0"},
		{"unknown operation", []string{"run", "embedded", "--mix", "load_tables=1"}, `"load_tables"`},
		{"unknown mix", []string{"run", "embedded", "--mix", "read-mostly"}, "read-mostly"},
		{"bad weight", []string{"run", "embedded", "--mix", "load_table=lots"}, "lots"},
		{"hotspot fraction", []string{"run", "embedded", "--mix", "read-heavy", "--keys", "hotspot:1.5:0.9"}, "FRACTION"},
		{"hotspot zero", []string{"run", "embedded", "--mix", "read-heavy", "--keys", "hotspot:0:0.9"}, "FRACTION"},
		{"zipf exponent", []string{"run", "embedded", "--mix", "read-heavy", "--keys", "zipf:1"}, "> 1"},
		{"unknown keys", []string{"run", "embedded", "--mix", "read-heavy", "--keys", "pareto"}, "pareto"},
		{"keys without mix", []string{"run", "embedded", "--keys", "uniform"}, "--mix"},
		{"bad arrivals", []string{"run", "embedded", "--mix", "read-heavy", "--rate", "10", "--arrivals", "bursty"}, "bursty"},
		{"poisson closed", []string{"run", "embedded", "--mix", "read-heavy", "--arrivals", "poisson"}, "--rate"},
		{"mix and scenario", []string{"run", "embedded", "--mix", "read-heavy", "--scenario", "load_table.*"}, "--scenario"},
		{"capacity rate", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<=50ms", "--rate", "100"}, "--rate"},
		{"capacity no slo", []string{"capacity", "embedded", "--mix", "read-heavy"}, "--slo"},
		{"capacity no mix", []string{"capacity", "embedded", "--slo", "p99<=50ms"}, "--mix"},
		{"slo unparsable", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<50ms"}, "p99<50ms"},
		{"slo percentile", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p100<=1s"}, "p100"},
		{"slo unknown op", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "drop_table:p99<=1s"}, "drop_table"},
		{"slo op not in mix", []string{"capacity", "embedded", "--mix", "crawl", "--slo", "commit_table:p99<=1s"}, "commit_table"},
		{"slo error rate", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<=1s,errors<=3"}, "errors<=3"},
		{"capacity factor", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<=1s", "--factor", "1"}, "factor"},
		{"capacity rates", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<=1s", "--start-rate", "-5"}, "rates"},
		{"capacity snapshots", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<=1s", "--snapshots", "0,10"}, "--snapshots with capacity"},
		{"capacity threads", []string{"capacity", "embedded", "--mix", "read-heavy", "--slo", "p99<=1s", "--threads", "4"}, "--threads does not shape it"},
		{"capacity unknown target", []string{"capacity", "nosuch", "--mix", "read-heavy", "--slo", "p99<=1s"}, "nosuch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUsageError(t, nil, c.args, c.want) })
	}
}

func TestListNamesMixes(t *testing.T) {
	stdout, _, code := katbench(t, t.TempDir(), "list")
	for _, want := range []string{"read-heavy", "write-heavy", "commit-storm", "crawl", "hotspot:0.02:1", "list_tables"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("list (exit %d) lacks %q", code, want)
		}
	}
}
