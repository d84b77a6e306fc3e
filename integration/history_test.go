package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// assertNessieHistory runs the history levels 0 and 5 on the Nessie the
// end-to-end test started (env) and checks every level's lines: measured
// without errors, built by commits or register, the level on the line, and
// the snapshots Nessie serves said — it keeps one snapshot per table
// version, so a history it serves short must carry a note saying so.
func assertNessieHistory(t *testing.T, env []string) {
	t.Helper()
	scen := "load_table.latency,load_table.direct.latency,load_table.revalidate.latency,commit_table.latency"
	res := runKatbench(t, 10*time.Minute, env, "run", "nessie", "--quick", "--tables", "4", "--snapshots", "0,5",
		"--history-tables", "1", "--scenario", scen, "--server-warmup", "0", "--ops", "50", "--create-ops", "5", "--history", "")
	if res.err != nil {
		t.Fatalf("nessie history run failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	seen := map[string]bool{}
	for _, r := range parseRecords(t, res.stdout) {
		n, ok := r.Params["snapshots"].(float64)
		if !ok {
			continue // the dataset's own lines
		}
		key := fmt.Sprintf("%s s=%v %v", r.Scenario, n, r.Params["snapshots_mode"])
		seen[key] = true
		if r.Skipped != "" || r.Ops == 0 || r.Errors != 0 {
			t.Errorf("nessie %s: skipped %q, ops %d, errors %d (%s)", key, r.Skipped, r.Ops, r.Errors, r.FirstError)
			continue
		}
		if b := r.Params["history_built"]; b != "commits" && b != "register" {
			t.Errorf("nessie %s: history_built %v", key, b)
		}
		got, ok := r.MeasureValue("snapshots_received")
		if !ok || got > n {
			t.Errorf("nessie %s: snapshots_received %v (%v), want at most %v", key, got, ok, n)
		}
		if note, _ := r.Params["history_note"].(string); got < n && !strings.Contains(note, "serves") {
			t.Errorf("nessie %s: serves %v of %v snapshots and the line does not say so (note %q)", key, got, n, note)
		}
	}
	for _, n := range []int{0, 5} {
		for _, k := range []string{"load_table.latency s=%d <nil>", "load_table.direct.latency s=%d all", "load_table.direct.latency s=%d refs",
			"load_table.revalidate.latency s=%d <nil>", "commit_table.latency s=%d <nil>"} {
			if k := fmt.Sprintf(k, n); !seen[k] {
				t.Errorf("nessie: no line for %s", k)
			}
		}
	}
}
