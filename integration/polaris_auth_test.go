package integration

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// startServeREST runs `katbench serve rest --addr 127.0.0.1:0 args...` and
// returns its base URL once it listens; the process is stopped when the
// test ends.
func startServeREST(t *testing.T, args ...string) string {
	t.Helper()
	u, _ := testenv.ServeRest(t, exec.Command(needKatbench(t), append([]string{"serve", "rest", "--addr", "127.0.0.1:0", "--dir", t.TempDir()}, args...)...))
	return u
}

// TestPolarisPathAgainstOurFront proves the Polaris client path without
// Polaris: our REST front requiring credential root:s3cr3t and scope
// PRINCIPAL_ROLE:ALL, driven by `katbench polaris URL WAREHOUSE` with the
// KATBENCH_POLARIS_PROPS polaris_up.sh prints. A wrong secret or a missing scope
// must fail clearly.
func TestPolarisPathAgainstOurFront(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	u := startServeREST(t, "--credential", "root:s3cr3t", "--scope", "PRINCIPAL_ROLE:ALL")
	scenarios := "--scenario=table_exists.latency,load_table.latency,create_table.latency,load_table.throughput.t4"

	t.Run("right credential and scope", func(t *testing.T) {
		res := runKatbench(t, 10*time.Minute,
			[]string{"KATBENCH_POLARIS_PROPS=credential=root:s3cr3t,scope=PRINCIPAL_ROLE:ALL"},
			"polaris", u, "katbench", "--quick", "--history", "", "--warmup", "1s", scenarios)
		if res.err != nil {
			t.Fatalf("katbench polaris failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
		}
		m := byTarget(parseRecords(t, res.stdout))
		rows := m["polaris"]
		if len(rows) == 0 {
			t.Fatalf("no polaris rows; targets %v\nstderr:\n%s", keys(m), tailLines(res.stderr, 40))
		}
		te, ok := rows["table_exists.latency"]
		if !ok || te.Skipped != "" || te.Ops <= 0 || te.Errors != 0 {
			t.Errorf("table_exists.latency = %s (present %v); want ops > 0 and no errors", summary(te), ok)
		}
		for _, name := range []string{"load_table.latency", "create_table.latency", "load_table.throughput.t4"} {
			r, ok := rows[name]
			if !ok || r.Skipped != "" || r.Ops <= 0 || r.Errors != 0 {
				t.Errorf("%s = %s (present %v); want ops > 0 and no errors", name, summary(r), ok)
			}
		}
		if p, _ := te.Params["auth"].(string); p != "oauth2" {
			t.Errorf("params.auth = %v; the run did not authenticate with OAuth2", te.Params["auth"])
		}
		for _, r := range rows {
			if strings.Contains(r.Hist+toString(r.Params), "s3cr3t") {
				t.Errorf("%s: the secret leaked into the result line", r.Scenario)
			}
		}
	})

	for _, bad := range []struct{ name, props string }{
		{"wrong secret", "credential=root:wrong,scope=PRINCIPAL_ROLE:ALL"},
		{"missing scope", "credential=root:s3cr3t"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			res := runKatbench(t, 5*time.Minute, []string{"KATBENCH_POLARIS_PROPS=" + bad.props},
				"polaris", u, "katbench", "--quick", "--history", "", "--warmup", "100ms",
				"--scenario=table_exists.latency")
			out := res.stdout + res.stderr
			if res.err == nil {
				// Exit 0 is acceptable only if no row claims a measurement.
				for _, r := range parseRecords(t, res.stdout) {
					if r.Skipped == "" && r.Ops > 0 && r.Errors == 0 {
						t.Fatalf("%s: %s ran cleanly (%s); the server let an unauthorised client in", bad.name, r.Scenario, summary(r))
					}
				}
			}
			if !regexp.MustCompile(`(?i)401|403|unauthori[sz]ed|invalid_client|invalid_scope|forbidden|oauth|token`).MatchString(out) {
				t.Errorf("%s: the failure does not say it is an auth failure:\n%s", bad.name, tailLines(out, 30))
			}
			t.Logf("%s: katbench said:\n%s", bad.name, tailLines(res.stderr, 3))
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func toString(m map[string]any) string {
	var b strings.Builder
	for k, v := range m {
		b.WriteString(k)
		b.WriteString("=")
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
		b.WriteString(" ")
	}
	return b.String()
}
