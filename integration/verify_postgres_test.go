package integration

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestVerifyKillPostgres: kill -9 of the PostgreSQL under iceberg-go's SQL
// catalog (sql-pg) at moments during a commit storm, each time restarted on
// its own data by containers/postgres_restart.sh (crash recovery replays
// its WAL): the check on the recovered database finds every acknowledged
// commit, once, in a linear history.
func TestVerifyKillPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	needKatbench(t)
	pg := testenv.Postgres(t)
	state := pg.Service.StateDir
	out := filepath.Join(t.TempDir(), "verify.jsonl")
	env := append(pg.Service.Environ(nil), "KATBENCH_STATE_DIR="+state)
	res := runKatbench(t, 10*time.Minute, env, "verify", "sql-pg", "--writers", "4", "--duration", "8s",
		"--kill-every", "2s", "--seed", "3",
		"--kill-pid-file", filepath.Join(state, "postgres", "pid"),
		"--restart", filepath.Join(testenv.RepoRoot(), "containers", "postgres_restart.sh"),
		"--out", out)
	if res.err != nil {
		t.Fatalf("katbench verify failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs := parseRecords(t, string(b))
	if len(recs) != 1 {
		t.Fatalf("%d lines, want 1", len(recs))
	}
	r := recs[0]
	if kills, _ := r.Params["kills"].(float64); kills < 1 {
		t.Fatalf("PostgreSQL was never killed: %v", r.Params)
	}
	if v, ok := r.MeasureValue("acked"); !ok || v == 0 {
		t.Fatalf("nothing acknowledged across the kills\n%s", tailLines(res.stdout, 40))
	}
	acked, _ := r.MeasureValue("acked")
	ind, _ := r.MeasureValue("indeterminate")
	t.Logf("%v kills: %v acknowledged, %v indeterminate", r.Params["kills"], acked, ind)
	for _, k := range []string{"lost", "duplicated", "phantom", "forked", "unreadable"} {
		if v, ok := r.MeasureValue(k); !ok || v != 0 {
			t.Errorf("%s = %v (present %t) after kill -9 of PostgreSQL", k, v, ok)
		}
	}
}
