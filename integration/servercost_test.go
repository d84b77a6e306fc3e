package integration

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
)

// TestServerCostRESTAndFixture runs our REST front (as a child process
// of katbench) and the Apache REST fixture (started by containers/), and
// checks that each line says what the server paid: its processes, CPU for
// the operations done, its memory and the client's wire bytes; the
// fixture's SQLite file is found as its store. Presence and plausibility,
// not timings.
func TestServerCostRESTAndFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	needKatbench(t)
	state := filepath.Join(t.TempDir(), "state")
	port := freePorts(t, 1)[0]
	svc, err := testenv.StartService("fixture", state, 15*time.Minute, "--port", strconv.Itoa(port))
	if svc != nil {
		t.Cleanup(func() { _ = svc.Down(2 * time.Minute) })
	}
	testenv.Need(t, "fixture", err)

	res := runKatbench(t, 15*time.Minute, svc.Environ(nil), "run", "rest", "fixture", "--quick",
		"--scenario", "load_table.latency", "--server-warmup", "0", "--history", "")
	if res.err != nil {
		t.Fatalf("katbench run failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	rows := byTarget(parseRecords(t, res.stdout))
	for _, target := range []string{"rest", "fixture"} {
		r, ok := rows[target]["load_table.latency"]
		if !ok {
			t.Fatalf("%s: no load_table.latency line in\n%s", target, res.stdout)
		}
		assertServerCost(t, r)
	}
	rest := rows["rest"]["load_table.latency"]
	if rest.Params["server"] != "child" {
		t.Errorf("rest params.server = %v, want child (its cost apart from the client's)", rest.Params["server"])
	}
	if pid, ok := rest.Params["server_pid"].(float64); !ok || !slices.Contains(rest.Server.PIDs, int(pid)) {
		t.Errorf("rest server pids %v do not hold its child %v", rest.Server.PIDs, rest.Params["server_pid"])
	}
	if fx := rows["fixture"]["load_table.latency"]; fx.Server.StoreBytes == nil || *fx.Server.StoreBytes <= 0 {
		t.Errorf("fixture store_bytes = %v, want its SQLite file's size", fx.Server.StoreBytes)
	}
}

// TestGrowthSweepREST runs a two-size sweep on rest and grpc (child
// processes) and checks that each size has its lines, the second
// measured on the grown dataset, grown through the bulk path (the child
// restarted over its loaded store), that the creates of the second size
// name tables of their own (a failed create fails the run), and that the
// gRPC lines take the server's time from its trailer.
func TestGrowthSweepREST(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	res := runKatbench(t, 10*time.Minute, nil, "run", "rest", "grpc", "--quick", "--tables", "20,200",
		"--scenario", "load_table.latency,list_tables.latency,create_table.latency", "--history", "")
	if res.err != nil {
		t.Fatalf("katbench run failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	seen := map[float64]results.Record{}
	pids := map[string]map[any]bool{}
	for _, r := range parseRecords(t, res.stdout) {
		if r.Scenario == "list_tables.latency" && r.Target == "rest" {
			seen[r.Dims[results.DimTables]] = r
		}
		if r.Scenario != "load_table.latency" {
			continue
		}
		assertServerCost(t, r)
		if pids[r.Target] == nil {
			pids[r.Target] = map[any]bool{}
		}
		pids[r.Target][r.Params["server_pid"]] = true
		if r.Dims[results.DimTables] == 200 && r.Params["setup_path"] != "bulk" {
			t.Errorf("%s at 200 tables: params.setup_path = %v, want bulk", r.Target, r.Params["setup_path"])
		}
		if r.Target == "grpc" && (r.TimeParts == nil || r.TimeParts.ServerSource != "server-timing" || r.TimeParts.ServerUS <= 0) {
			t.Errorf("grpc time_parts %+v, want the server's time from its trailer", r.TimeParts)
		}
	}
	for _, tg := range []string{"rest", "grpc"} {
		if len(pids[tg]) != 2 {
			t.Errorf("%s server pids over the sizes %v: want two, the child restarted after its bulk load", tg, pids[tg])
		}
	}
	for size, wantAtLeast := range map[float64]float64{20: 20, 200: 200} {
		r, ok := seen[size]
		if !ok {
			t.Fatalf("no list_tables line at %v tables; lines at %v", size, seen)
		}
		if got, _ := r.Params["tables"].(float64); got < wantAtLeast {
			t.Errorf("list_tables at %v tables ran on %v tables", size, r.Params["tables"])
		}
	}
}

// assertServerCost checks that a measured line carries plausible server
// cost and wire bytes.
func assertServerCost(t *testing.T, r results.Record) {
	t.Helper()
	s := r.Server
	if s == nil {
		t.Fatalf("%s %s: no server field; params %v", r.Target, r.Scenario, r.Params)
	}
	if r.Ops <= 0 {
		t.Fatalf("%s %s: no operations", r.Target, r.Scenario)
	}
	if s.Source != "proc" || len(s.PIDs) == 0 {
		t.Errorf("%s: server source %q pids %v, want proc and the server's pids", r.Target, s.Source, s.PIDs)
	}
	if s.CPUUSPerOp == nil || *s.CPUUSPerOp <= 0 {
		t.Errorf("%s: cpu_us_per_op %v for %d operations, want > 0", r.Target, s.CPUUSPerOp, r.Ops)
	}
	if s.RSSAfterBytes == nil || *s.RSSAfterBytes <= 0 || s.RSSPeakBytes == nil || *s.RSSPeakBytes < *s.RSSAfterBytes {
		t.Errorf("%s: rss peak %v after %v, want peak ≥ after > 0", r.Target, s.RSSPeakBytes, s.RSSAfterBytes)
	}
	if r.WireBytesPerOp == nil || *r.WireBytesPerOp <= 0 {
		t.Errorf("%s: wire_bytes_per_op %v, want > 0", r.Target, r.WireBytesPerOp)
	}
}

// TestRESTSigV4Child runs rest-sigv4 with its front as a child process
// through a two-size sweep: every request of the run is signed and
// verified (a refused one fails the run), also after the child restarts
// over its bulk-loaded store, and the run's key shows nowhere in what
// katbench prints.
func TestRESTSigV4Child(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	res := runKatbench(t, 10*time.Minute, nil, "run", "rest-sigv4", "--quick", "--tables", "20,200",
		"--scenario", "load_table.latency,create_table.latency", "--history", "")
	if res.err != nil {
		t.Fatalf("katbench run failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	pids := map[any]bool{}
	n := 0
	for _, r := range parseRecords(t, res.stdout) {
		if r.Skipped != "" {
			continue
		}
		n++
		if r.Params["auth"] != "sigv4" || r.Params["server"] != "child" {
			t.Errorf("%s at %v tables: params.auth %v, server %v: want sigv4, child", r.Scenario, r.Dims[results.DimTables], r.Params["auth"], r.Params["server"])
		}
		pids[r.Params["server_pid"]] = true
	}
	if n != 4 || len(pids) != 2 {
		t.Errorf("%d measured lines on %d server pids, want 4 on 2 (the child restarted after its bulk load)", n, len(pids))
	}
	// The key's id has a fixed shape (sigV4Key); its secret travels with it.
	if k := regexp.MustCompile(`AKKB[0-9A-F]{16}|KATBENCH_SIGV4=`).FindString(res.stdout + res.stderr); k != "" {
		t.Errorf("the run printed its SigV4 key: %q", k)
	}
}

// TestServerCostSQLPG: iceberg-go's SQL catalog runs in katbench's own
// process, so its server cost is its store's: the PostgreSQL backends of
// its connections, their CPU per operation and the database's bytes; the
// server's memory is absent, saying why, never 0.
func TestServerCostSQLPG(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	needKatbench(t)
	pg := testenv.Postgres(t)
	res := runKatbench(t, 10*time.Minute, pg.Service.Environ(nil), "run", "sql-pg", "--quick",
		"--scenario", "load_table.latency,create_table.latency", "--history", "")
	if res.err != nil {
		t.Fatalf("katbench run failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	rows := byTarget(parseRecords(t, res.stdout))
	for _, sc := range []string{"load_table.latency", "create_table.latency"} {
		r, ok := rows["sql-pg"][sc]
		if !ok {
			t.Fatalf("no sql-pg %s line in\n%s", sc, res.stdout)
		}
		s := r.Server
		if s == nil {
			t.Fatalf("sql-pg %s: no server field; params %v", sc, r.Params)
		}
		if s.Source != "proc" || len(s.StorePIDs) == 0 || len(s.PIDs) != 0 {
			t.Errorf("sql-pg %s: source %q pids %v store pids %v, want proc, no server pid, the backends", sc, s.Source, s.PIDs, s.StorePIDs)
		}
		if s.CPUUSPerOp == nil || *s.CPUUSPerOp <= 0 || s.StoreCPUUSPerOp == nil || *s.StoreCPUUSPerOp != *s.CPUUSPerOp {
			t.Errorf("sql-pg %s: cpu %v store cpu %v, want equal and > 0 (the store is all that is measured)", sc, s.CPUUSPerOp, s.StoreCPUUSPerOp)
		}
		if s.StoreBytes == nil || *s.StoreBytes <= 0 {
			t.Errorf("sql-pg %s: store_bytes %v, want the database's size", sc, s.StoreBytes)
		}
		if s.RSSAfterBytes != nil || s.RSSPeakBytes != nil {
			t.Errorf("sql-pg %s: rss %v/%v, want absent (the catalog is the client's process)", sc, s.RSSPeakBytes, s.RSSAfterBytes)
		}
		if m, _ := r.Params["server_cost_missing"].(map[string]any); m["rss"] == nil {
			t.Errorf("sql-pg %s: no reason for the absent rss in %v", sc, r.Params["server_cost_missing"])
		}
	}
}
