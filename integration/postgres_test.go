package integration

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/testenv"
)

// durableServer is one catalog server that stores in PostgreSQL (or
// RocksDB) and how its up script starts it.
type durableServer struct {
	target, script, store, stateDir, wantStore string
	args                                       []string
	svc                                        *testenv.Service
}

// TestPostgresCatalogsEndToEnd starts one PostgreSQL cluster and, on it,
// Nessie (JDBC2), Polaris (relational-jdbc), the REST fixture (JDBC
// catalog) and Rustberg (catalog-postgres), plus Nessie on RocksDB; runs `katbench run` over those and
// sql-pg and asserts clean rows with params.store set; then, for each
// server, creates tables and commits, SIGKILLs it, restarts it on the same
// store and finds every acknowledged table and commit.
func TestPostgresCatalogsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	needKatbench(t)
	pg := testenv.Postgres(t)
	ports := freePorts(t, 7)
	// Polaris' management port is its port+1: both reserved.
	polaris, err := testenv.FreePortRun(2)
	testenv.Need(t, "free ports", err)
	servers := []*durableServer{
		{target: "nessie-pg", script: "nessie", store: "jdbc", stateDir: "nessie-pg", wantStore: competitors.StorePostgreSQL,
			args: []string{"--port", strconv.Itoa(ports[0]), "--management-port", strconv.Itoa(ports[1]), "--s3-port", strconv.Itoa(ports[4])}},
		{target: "nessie-rocks", script: "nessie", store: "rocksdb", stateDir: "nessie-rocks", wantStore: competitors.StoreRocksDB,
			args: []string{"--port", strconv.Itoa(ports[2]), "--management-port", strconv.Itoa(ports[3]), "--s3-port", strconv.Itoa(ports[4])}},
		{target: "polaris-pg", script: "polaris", store: "postgres", stateDir: "polaris-pg", wantStore: competitors.StorePostgreSQL,
			args: []string{"--port", strconv.Itoa(polaris)}},
		{target: "fixture-pg", script: "fixture", store: "postgres", stateDir: "fixture-pg", wantStore: competitors.StorePostgreSQL,
			args: []string{"--port", strconv.Itoa(ports[5])}},
		{target: "rustberg-pg", script: "rustberg", store: "postgres", stateDir: "rustberg-pg", wantStore: competitors.StorePostgreSQL,
			args: []string{"--port", strconv.Itoa(ports[6])}},
	}
	env := pg.Service.Environ(nil)
	for _, s := range servers {
		svc, err := testenv.StartOnPostgres(t, pg, s.script, s.store, 30*time.Minute, s.args...)
		testenv.Need(t, s.target, err)
		s.svc = svc
		env = svc.Environ(env)
	}

	targets := []string{"sql-pg"}
	for _, s := range servers {
		targets = append(targets, s.target)
	}
	args := append([]string{"run"}, targets...)
	// Few operations per scenario: this checks that every competitor gives
	// clean rows, it measures nothing (a JVM server under a loaded machine
	// answers in tens of milliseconds, and the default 2,000 operations per
	// latency scenario would take minutes per target).
	args = append(args, "--quick", "--tables", "40", "--ops", "100", "--create-ops", "20", "--threads", "4",
		"--server-warmup", "2s", "--history", "", "--allow-errors",
		"--scenario", "control.latency,load_table.latency,load_table.throughput.t4,table_exists.latency,create_table.latency,create_table.throughput.t4,commit_table.latency")
	res := runKatbench(t, 30*time.Minute, env, args...)
	if res.err != nil {
		t.Fatalf("katbench run failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 60))
	}
	m := byTarget(parseRecords(t, res.stdout))
	wantStore := map[string]string{"sql-pg": competitors.StorePostgreSQL}
	for _, s := range servers {
		wantStore[s.target] = s.wantStore
	}
	for _, target := range targets {
		rows := m[target]
		if len(rows) < 7 {
			t.Errorf("%s: %d rows; want every scenario", target, len(rows))
			continue
		}
		for name, r := range rows {
			if target == "sql-pg" && name == "create_table.throughput.t4" {
				// iceberg-go's SERIALIZABLE creates on PostgreSQL: some of 4
				// concurrent writers' transactions abort with SQLSTATE 40001
				// after iceberg-go's retries (docs/catalogs.md). The line
				// records them; it must still have measured creates.
				if r.Ops <= 0 || r.Skipped != "" {
					t.Errorf("%s %s: ops=%d skipped=%q; want creates measured", target, name, r.Ops, r.Skipped)
				}
				continue
			}
			if r.Errors != 0 || r.Skipped != "" {
				t.Errorf("%s %s: errors=%d skipped=%q", target, name, r.Errors, r.Skipped)
			}
			if got := r.Params["store"]; got != wantStore[target] {
				t.Errorf("%s %s: params.store = %v; want %q", target, name, got, wantStore[target])
			}
		}
		if r, ok := rows["load_table.latency"]; !ok || r.Ops <= 0 {
			t.Errorf("%s: load_table.latency = %+v; want ops > 0", target, summary(r))
		}
	}

	// A server whose catalog is not bootstrapped (here: a warehouse Polaris
	// does not have) is refused with the competitor's name and what to run.
	t.Run("not-bootstrapped", func(t *testing.T) {
		bad := append(append([]string(nil), env...), "KATBENCH_POLARIS_PG_WAREHOUSE=no_such_catalog")
		res := runKatbench(t, 5*time.Minute, bad, "run", "rest", "polaris-pg", "--quick", "--history", "")
		if res.err == nil {
			t.Fatal("katbench run against a missing Polaris catalog succeeded")
		}
		if strings.TrimSpace(res.stdout) != "" {
			t.Errorf("result lines were written: %.300s", res.stdout)
		}
		for _, want := range []string{"polaris-pg", "polaris_up.sh --store postgres"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, tailLines(res.stderr, 20))
			}
		}
	})

	// Kill and restart: what a server acknowledged survives its crash.
	for _, s := range servers {
		t.Run("durable/"+s.target, func(t *testing.T) { checkSurvivesKill(t, pg, s) })
	}
}

// checkSurvivesKill creates tables and a commit on each through the
// server's competitor (the same client the benchmarks use), SIGKILLs the
// server, restarts it with the same arguments on the same store, and loads
// every table back with its committed property.
func checkSurvivesKill(t *testing.T, pg testenv.PGEnv, s *durableServer) {
	ctx := context.Background()
	for k, v := range s.svc.Env {
		t.Setenv(k, v)
	}
	open := func() competitors.Competitor {
		t.Helper()
		f, err := competitors.Lookup(s.target)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.New(ctx, competitors.Config{Dir: t.TempDir(), Env: competitors.ReadEnv(s.target, os.Getenv)})
		if err != nil {
			t.Fatalf("connect to %s: %v", s.target, err)
		}
		return c
	}
	c := open()
	cat := c.Catalog()
	ns := table.Identifier{"crash_" + strings.ReplaceAll(s.target, "-", "_")}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int64, Required: false})
	const n = 5
	for i := range n {
		id := append(append(table.Identifier{}, ns...), fmt.Sprintf("t%d", i))
		tbl, err := cat.CreateTable(ctx, id, schema)
		if err != nil {
			t.Fatalf("create %v: %v", id, err)
		}
		tx := tbl.NewTransaction()
		if err := tx.SetProperties(iceberg.Properties{"katbench.commit": strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(ctx); err != nil {
			t.Fatalf("commit %v: %v", id, err)
		}
	}
	_ = c.Close()

	if err := s.svc.KillServer(s.stateDir); err != nil {
		t.Fatal(err)
	}
	svc, err := testenv.StartService(s.script, pg.Service.StateDir, 10*time.Minute, append([]string{"--store", s.store}, s.args...)...)
	if err != nil {
		t.Fatalf("restart %s on the same store: %v", s.target, err)
	}
	svc.DownArgs = s.svc.DownArgs
	for k, v := range svc.Env {
		t.Setenv(k, v)
	}

	c = open()
	defer c.Close()
	for i := range n {
		id := append(append(table.Identifier{}, ns...), fmt.Sprintf("t%d", i))
		tbl, err := c.Catalog().LoadTable(ctx, id)
		if err != nil {
			t.Errorf("after the crash, %v is gone: %v", id, err)
			continue
		}
		if got := tbl.Properties()["katbench.commit"]; got != strconv.Itoa(i) {
			t.Errorf("after the crash, %v has katbench.commit=%q; want %d (the acknowledged commit)", id, got, i)
		}
	}
}

// TestSQLPGUnreachableStopsTheRun: with PostgreSQL not reachable, a run of
// rest and sql-pg fails before any scenario, names sql-pg and what to run,
// and writes no result line.
func TestSQLPGUnreachableStopsTheRun(t *testing.T) {
	needKatbench(t)
	port := freePorts(t, 1)[0]
	env := []string{"KATBENCH_PG_URL=postgres://sqlcat:pw-not-shown@127.0.0.1:" + strconv.Itoa(port) + "/sqlcat?sslmode=disable"}
	res := runKatbench(t, 5*time.Minute, env, "run", "rest", "sql-pg", "--quick", "--history", "")
	if res.err == nil {
		t.Fatal("katbench run with PostgreSQL down succeeded")
	}
	if strings.TrimSpace(res.stdout) != "" {
		t.Errorf("result lines were written: %.300s", res.stdout)
	}
	for _, want := range []string{"sql-pg", "not reachable", "postgres_up.sh"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, tailLines(res.stderr, 20))
		}
	}
	if strings.Contains(res.stderr, "pw-not-shown") {
		t.Errorf("stderr shows the password:\n%s", tailLines(res.stderr, 20))
	}
	if strings.Contains(res.stderr, "building dataset") {
		t.Errorf("a dataset was built before the failure:\n%s", tailLines(res.stderr, 20))
	}
}
