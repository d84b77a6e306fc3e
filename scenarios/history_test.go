package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// historyScenarios are the scenarios that run once more per history level.
var historyScenarios = []string{
	"load_table.latency", "load_table.cold.latency", "load_table.revalidate.latency",
	scenarios.DirectLoadName, "load_table.throughput.t1", "commit_table.latency",
}

// historyKey names a line by target, scenario, level and snapshots mode.
func historyKey(r results.Record) string {
	k := fmt.Sprintf("%s %s s=%v", r.Target, r.Scenario, r.Params["snapshots"])
	if m, ok := r.Params["snapshots_mode"]; ok {
		k += fmt.Sprintf(" %v", m)
	}
	return k
}

// TestHistoryLevels builds history levels of 0, 3 and 40 snapshots on the
// embedded catalog, our REST front over it and our gRPC front (real bbolt
// files and loopback servers), and checks every line of every level: the
// level's snapshots reached the client, the metadata grew with them, the
// build path and time are on the line, the front answered revalidations
// with 304 and snapshots=refs with the current snapshot only.
func TestHistoryLevels(t *testing.T) {
	o := tinyOptions()
	o.Rate = 0
	o.Threads = []int{1}
	o.History = dataset.History{Levels: []int{0, 3, 40}, Tables: 2, Build: dataset.HistoryAuto}
	// The discovery scenarios run after the levels are built: they must
	// not see the history tables or their namespaces.
	discovery := []string{"list_namespaces.latency", "load_namespace.latency", "catalog_crawl"}
	sel, err := scenarios.ParseSelector(strings.Join(append(discovery, historyScenarios...), ","), o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	targets := []string{"embedded", "rest", "grpc"}
	coll := runTargets(t, o, targets...)
	got := map[string]results.Record{}
	for _, rec := range coll.Records {
		k := historyKey(rec)
		if _, dup := got[k]; dup {
			t.Errorf("two lines for %s", k)
		}
		got[k] = rec
	}
	for _, tg := range targets {
		for _, name := range discovery {
			rec := got[tg+" "+name+" s=<nil>"]
			if rec.Skipped != "" || rec.Ops == 0 || rec.Errors != 0 {
				t.Errorf("%s %s beside history levels: skipped %q, ops %d, errors %d (%s)", tg, name, rec.Skipped, rec.Ops, rec.Errors, rec.FirstError)
			}
		}
		// The dataset's 10 and commit_table.latency's 16 in the work
		// namespace; not the 6 of the history levels.
		if c := got[tg+" catalog_crawl s=<nil>"]; c.Params["crawl_tables"] != 26 {
			t.Errorf("%s catalog_crawl: crawled %v tables, want 26 (the history tables are apart)", tg, c.Params["crawl_tables"])
		}
	}
	built := map[string]string{"embedded": dataset.HistoryRegister, "rest": dataset.HistoryRegister, "grpc": dataset.HistoryCommits}
	for _, tg := range targets {
		for _, name := range historyScenarios {
			var lastBytes float64
			for _, n := range o.History.Levels {
				modes := []string{""}
				if name == scenarios.DirectLoadName {
					modes = scenarios.SnapshotModes
				}
				for _, mode := range modes {
					k := fmt.Sprintf("%s %s s=%d", tg, name, n)
					if mode != "" {
						k += " " + mode
					}
					rec, ok := got[k]
					if !ok {
						t.Errorf("no line for %s", k)
						continue
					}
					if reason, skips := historySkip(tg, name); skips {
						if !strings.Contains(rec.Skipped, reason) {
							t.Errorf("%s: skipped = %q, want a reason naming %q", k, rec.Skipped, reason)
						}
						continue
					}
					if rec.Skipped != "" || rec.Ops == 0 || rec.Errors != 0 {
						t.Errorf("%s: skipped %q, ops %d, errors %d (%s)", k, rec.Skipped, rec.Ops, rec.Errors, rec.FirstError)
						continue
					}
					if rec.Params["history_built"] != built[tg] || rec.Params["history_tables"] != 2 {
						t.Errorf("%s: history_built %v, history_tables %v; want %s and 2", k, rec.Params["history_built"], rec.Params["history_tables"], built[tg])
					}
					if note, ok := rec.Params["history_note"]; ok {
						t.Errorf("%s: history_note %q: the history differs from the one asked for", k, note)
					}
					if v, ok := rec.MeasureValue("snapshots_received"); !ok || v != float64(n) {
						t.Errorf("%s: snapshots_received %v (%v), want %d", k, v, ok, n)
					}
					if _, ok := rec.MeasureValue("history_build_s"); !ok {
						t.Errorf("%s: no history_build_s", k)
					}
					b, ok := rec.MeasureValue("metadata_bytes")
					if !ok || b <= lastBytes {
						t.Errorf("%s: metadata_bytes %v (%v), want more than the level below's %v", k, b, ok, lastBytes)
					}
					if mode == "" || mode == scenarios.SnapshotsRefs {
						lastBytes = b
					}
					checkHistoryLine(t, k, rec, tg, name, n, mode)
				}
			}
		}
	}
}

// checkHistoryLine checks what one scenario's line must say at level n.
func checkHistoryLine(t *testing.T, k string, rec results.Record, tg, name string, n int, mode string) {
	t.Helper()
	switch name {
	case "load_table.revalidate.latency":
		if rec.Params["not_modified_ratio"] != 1.0 {
			t.Errorf("%s: not_modified_ratio %v, want 1 (every held version current)", k, rec.Params["not_modified_ratio"])
		}
	case scenarios.DirectLoadName:
		want := float64(n)
		if mode == scenarios.SnapshotsRefs {
			want = float64(min(n, 1)) // main's snapshot only
		}
		if v, _ := rec.MeasureValue("snapshots_answered"); v != want {
			t.Errorf("%s: snapshots_answered %v, want %v", k, v, want)
		}
	case "commit_table.latency":
		if rec.Params["commit_tables"] != 2 {
			t.Errorf("%s: commit_tables %v, want the level's 2", k, rec.Params["commit_tables"])
		}
	}
	if n > 0 && (tg == "embedded" || tg == "rest") {
		if v, _ := rec.MeasureValue("snapshot_log_received"); v != float64(n) {
			t.Errorf("%s: snapshot_log_received %v, want %d (a registered history keeps every entry)", k, v, n)
		}
	}
}

// historySkip reports whether target skips scenario name, and the word its
// reason must carry.
func historySkip(target, name string) (string, bool) {
	switch {
	case name == "load_table.revalidate.latency" && target == "embedded":
		return "conditional load", true
	case name == scenarios.DirectLoadName && target != "rest":
		return "REST", true
	case name == "load_table.cold.latency" && target != "embedded":
		return "reopened", true
	}
	return "", false
}
