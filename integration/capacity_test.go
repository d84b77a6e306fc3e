package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
)

// capacityStep is the part of a capacity line's params.steps entry the
// tests read.
type capacityStep struct {
	Rate     float64            `json:"rate"`
	Achieved float64            `json:"achieved"`
	Ops      int64              `json:"ops"`
	Errors   int64              `json:"errors"`
	Values   map[string]float64 `json:"objectives_us"`
	Met      bool               `json:"met"`
	Hist     string             `json:"hist"`
}

// capacitySteps decodes rec's params.steps.
func capacitySteps(t *testing.T, rec results.Record) []capacityStep {
	t.Helper()
	b, err := json.Marshal(rec.Params["steps"])
	if err != nil {
		t.Fatal(err)
	}
	var steps []capacityStep
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatalf("params.steps: %v (%s)", err, b)
	}
	return steps
}

// TestCapacityNessie runs `katbench capacity nessie --mix read-heavy`
// against a real Nessie (in-memory version store, warehouse on versitygw)
// with an objective any machine meets at these rates: a capacity line with
// a positive max_rate, its steps and their histograms, and the commits
// (Nessie keeps only main) on main. Then a second search on the same
// server, which is killed as the first step starts: the line says the
// target failed at its first step, has no max_rate, and the run exits
// non-zero.
func TestCapacityNessie(t *testing.T) {
	bin := needKatbench(t)
	nessie := testenv.Nessie(t)
	env := nessie.Service.Environ(nil)

	res := runKatbench(t, 10*time.Minute, env, "capacity", "nessie", "--quick", "--mix", "read-heavy", "--slo", "p99<=5s",
		"--start-rate", "10", "--max-rate", "20", "--step-duration", "1s", "--step-ops", "0", "--keep", "0.5",
		"--tables", "20", "--server-warmup", "0", "--format", "jsonl", "--history", "")
	if res.err != nil {
		t.Fatalf("capacity nessie: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	recs := parseRecords(t, res.stdout)
	if len(recs) != 1 {
		t.Fatalf("%d lines, want one capacity line", len(recs))
	}
	rec := recs[0]
	maxRate, _ := rec.Params["max_rate"].(float64)
	steps := capacitySteps(t, rec)
	if rec.Target != "nessie" || rec.Scenario != "capacity.read-heavy" || rec.Kind != "capacity" || maxRate <= 0 || rec.Errors != 0 {
		t.Fatalf("line %s %s kind %s max_rate %v errors %d (%v)", rec.Target, rec.Scenario, rec.Kind, rec.Params["max_rate"], rec.Errors, rec.Params["search_end"])
	}
	if len(steps) == 0 || steps[0].Rate != 10 {
		t.Fatalf("steps %+v: want the first at 10 ops/s", steps)
	}
	for _, st := range steps {
		if st.Hist == "" || st.Ops == 0 || st.Values["p99"] <= 0 {
			t.Fatalf("step %+v: want its ops, histogram and p99", st)
		}
	}
	if rec.Params["commit_ref"] != "main" {
		t.Errorf("commit_ref %v: Nessie's commits move main", rec.Params["commit_ref"])
	}
	if c, _ := rec.Params["commit_conflicts"].(float64); c < 0 {
		t.Errorf("commit_conflicts %v", rec.Params["commit_conflicts"])
	}

	// The same server, killed as the first step starts.
	args := []string{"capacity", "nessie", "--quick", "--mix", "load_table=1", "--slo", "p99<=5s",
		"--start-rate", "20", "--max-rate", "20", "--step-duration", "20s", "--step-ops", "0", "--warmup", "0s",
		"--tables", "20", "--server-warmup", "0", "--format", "jsonl", "--history", ""}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := make(chan error, 1)
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		line := sc.Text()
		stderr.WriteString(line + "\n")
		if strings.Contains(line, "capacity custom step 1 ") && len(killed) == 0 {
			killed <- nessie.Service.KillServer("nessie")
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("katbench did not finish\nstderr:\n%s", tailLines(stderr.String(), 40))
	}
	select {
	case kerr := <-killed:
		if kerr != nil {
			t.Fatal(kerr)
		}
	default:
		t.Fatalf("no first step was logged\nstderr:\n%s", tailLines(stderr.String(), 40))
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("exit %v after the target failed at its first step, want non-zero\nstderr:\n%s", err, tailLines(stderr.String(), 20))
	}
	recs = parseRecords(t, stdout.String())
	if len(recs) != 1 || recs[0].Scenario != "capacity.custom" {
		t.Fatalf("%d lines %v, want the capacity.custom line\nstderr:\n%s", len(recs), recs, tailLines(stderr.String(), 20))
	}
	rec = recs[0]
	failed, _ := rec.Params["capacity_failed"].(string)
	if !strings.Contains(failed, "first step") || rec.Errors == 0 || rec.FirstError == "" {
		t.Fatalf("failed %q errors %d first error %q: want the first step's failure on the line", failed, rec.Errors, rec.FirstError)
	}
	if _, ok := rec.Params["max_rate"]; ok || rec.OpsSec != 0 {
		t.Fatalf("a failed target has max_rate %v, ops_sec %v", rec.Params["max_rate"], rec.OpsSec)
	}
}
