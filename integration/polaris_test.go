package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// polarisScenarios keeps Polaris' share of `make test` short: the control
// round trip, the two read paths, one throughput level and creates, on 40
// tables with 300 recorded operations per latency scenario (Polaris answers
// in milliseconds on a loaded 2-core machine; 2,000 would take minutes).
const polarisScenarios = "control.latency,table_exists.latency,load_table.latency,load_table.throughput.t8,create_table.latency"

// TestPolarisEndToEnd starts a real Apache Polaris through
// containers/polaris_up.sh (Docker, or the fast-jar built once into the
// cache), runs `katbench run rest polaris` against it and asserts that every
// Polaris row is real: measured operations, no errors, nothing skipped, and
// the OAuth path in use. Then the down script must leave no process.
func TestPolarisEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	needKatbench(t)
	start := time.Now()
	pol := testenv.Polaris(t)
	t.Logf("Polaris up in %s at %s", time.Since(start).Round(time.Second), pol.URL)
	if !strings.HasSuffix(pol.URL, "/api/catalog") || pol.Warehouse == "" {
		t.Fatalf("polaris_up.sh exported URL %q warehouse %q; want .../api/catalog and a warehouse", pol.URL, pol.Warehouse)
	}
	// polaris_up.sh's credential must reach Polaris alone: in
	// BENCH_REST_PROPS (read by every REST competitor) it sent Polaris'
	// OAuth settings to Nessie too, and `run … nessie polaris` failed.
	if pol.Service.Env["KATBENCH_POLARIS_PROPS"] == "" {
		t.Errorf("polaris_up.sh exported no KATBENCH_POLARIS_PROPS")
	}
	if v, ok := pol.Service.Env["BENCH_REST_PROPS"]; ok {
		t.Errorf("polaris_up.sh exported BENCH_REST_PROPS=%q, which every REST competitor of a run reads", v)
	}
	pids, err := pol.Service.PIDs()
	if err != nil {
		t.Fatal(err)
	}

	res := runKatbench(t, 10*time.Minute, pol.Service.Environ(nil),
		"run", "rest", "polaris", "--quick", "--tables", "40", "--ops", "300", "--create-ops", "30",
		"--scenario", polarisScenarios, "--server-warmup", "5s", "--duration", "1s", "--history", "", "--format", "jsonl")
	if res.err != nil {
		t.Fatalf("katbench run rest polaris failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 60))
	}
	m := byTarget(parseRecords(t, res.stdout))
	rows := m["polaris"]
	for _, name := range strings.Split(polarisScenarios, ",") {
		r, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("polaris: no %s row", name)
		case r.Skipped != "":
			t.Errorf("polaris: %s skipped: %s", name, r.Skipped)
		case r.Ops <= 0 || r.P50US <= 0:
			t.Errorf("polaris: %s = %s; want measured operations", name, summary(r))
		case r.Errors != 0:
			t.Errorf("polaris: %s had %d errors of %d (first: %s)", name, r.Errors, r.Ops, r.FirstError)
		}
		if ok && r.Params["url"] != pol.URL {
			t.Errorf("polaris: %s params.url = %v, want %s", name, r.Params["url"], pol.URL)
		}
		if ok && r.Params["auth"] != "oauth2" {
			t.Errorf("polaris: %s params.auth = %v, want oauth2 (root's client credentials)", name, r.Params["auth"])
		}
	}
	for _, name := range []string{"table_exists.latency", "load_table.latency", "load_table.throughput.t8"} {
		t.Logf("polaris %s: %s | rest: %s", name, summary(rows[name]), summary(m["rest"][name]))
	}

	if err := pol.Service.Down(2 * time.Minute); err != nil {
		t.Fatalf("polaris_down.sh: %v", err)
	}
	for _, pid := range pids {
		if testenv.ProcessAlive(pid) {
			t.Errorf("pid %d still running after polaris_down.sh", pid)
		}
	}
	t.Logf("TestPolarisEndToEnd took %s", time.Since(start).Round(time.Second))
}
