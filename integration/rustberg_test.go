package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/testenv"
)

// TestRustbergEndToEnd starts Rustberg on redb with an API key of its own
// making (containers/rustberg_up.sh; a cold machine builds it first), runs
// `katbench run rustberg --quick` and asserts that the read and create
// scenarios ran without an error, that every line that measured nothing
// says why, and that the key never reaches the output. Then a wrong key is
// refused with a hint and without the key in the output.
func TestRustbergEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run; skipped with -short")
	}
	needKatbench(t)
	port := freePorts(t, 1)[0]
	svc := testenv.Up(t, "rustberg", 90*time.Minute, "--port", strconv.Itoa(port))
	token, ok := strings.CutPrefix(svc.Env["KATBENCH_RUSTBERG_PROPS"], "token=")
	if !ok || !strings.HasPrefix(token, "rb_") {
		t.Fatalf("rustberg_up.sh exported no API key as KATBENCH_RUSTBERG_PROPS=token=rb_… (got %d bytes)", len(svc.Env["KATBENCH_RUSTBERG_PROPS"]))
	}
	env := svc.Environ(nil)

	// --allow-errors: update_namespace_properties is refused by Rustberg
	// 0.3.0 (docs/catalogs.md), checked below on its own.
	res := runKatbench(t, 30*time.Minute, env, "run", "rustberg", "--quick", "--history", "", "--allow-errors")
	if res.err != nil {
		t.Fatalf("katbench run rustberg failed: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	for what, out := range map[string]string{"stdout": res.stdout, "stderr": res.stderr} {
		if strings.Contains(out, token) {
			t.Errorf("the API key appears on %s", what)
		}
	}
	rows := byTarget(parseRecords(t, res.stdout))["rustberg"]
	for _, name := range []string{"control.latency", "load_table.latency", "load_table.direct.latency", "load_table.throughput.t4",
		"table_exists.latency", "create_table.latency", "create_table.throughput.t4", "commit_table.latency"} {
		r, ok := rows[name]
		if !ok || r.Skipped != "" || r.Ops <= 0 || r.Errors != 0 {
			t.Errorf("rustberg %s: %s; want ops > 0 and no errors (first error %q)", name, summary(r), r.FirstError)
		}
	}
	for name, r := range rows {
		switch {
		case r.Skipped != "":
			if r.Ops != 0 {
				t.Errorf("rustberg %s: skipped (%s) but ops = %d", name, r.Skipped, r.Ops)
			}
		case r.Ops+r.Errors <= 0:
			t.Errorf("rustberg %s: neither measured nor skipped with a reason", name)
		case name == "update_namespace_properties.latency" && r.Errors > 0:
			if !strings.Contains(r.FirstError, "removals") {
				t.Errorf("rustberg %s: %d errors, first %q; want only Rustberg's refusal of a request without removals", name, r.Errors, r.FirstError)
			}
		case r.Errors != 0:
			t.Errorf("rustberg %s: %d errors, first %q", name, r.Errors, r.FirstError)
		}
		if r.Skipped == "" {
			if got := r.Params["store"]; got != competitors.StoreRedb {
				t.Errorf("rustberg %s: params.store = %v; want %q", name, got, competitors.StoreRedb)
			}
			if got := r.Params["server_version"]; got != "0.3.0" {
				t.Errorf("rustberg %s: params.server_version = %v; want 0.3.0", name, got)
			}
		}
	}

	// A wrong key: refused, with the competitor's hint, and the key given
	// appears nowhere. Last, because Rustberg counts failed keys per address.
	bad := "rb_" + strings.Repeat("0", len(token)-3)
	badEnv := append(append([]string(nil), env...), "KATBENCH_RUSTBERG_PROPS=token="+bad)
	res = runKatbench(t, 5*time.Minute, badEnv, "run", "rustberg", "--quick", "--history", "", "--scenario", "load_table.latency")
	if res.err == nil {
		t.Fatal("katbench run rustberg with a wrong API key succeeded")
	}
	if strings.TrimSpace(res.stdout) != "" {
		t.Errorf("result lines were written with a wrong key: %.300s", res.stdout)
	}
	if !strings.Contains(res.stderr, "KATBENCH_RUSTBERG_PROPS") {
		t.Errorf("stderr does not say how to give credentials:\n%s", tailLines(res.stderr, 20))
	}
	if strings.Contains(res.stderr, bad) {
		t.Error("the wrong API key appears on stderr")
	}
}
