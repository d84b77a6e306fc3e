package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/scenarios"
)

// TestReadOnlyRun: against a catalog holding the user's tables,
// `--read-only` reads them (load and exists measured without errors),
// skips every other scenario saying why, refuses a selection of write
// scenarios and a table that does not exist with exit 2 or a clear error,
// and leaves the catalog exactly as it was.
func TestReadOnlyRun(t *testing.T) {
	dir := t.TempDir()
	catDir := filepath.Join(dir, "served")
	addr, stop := startServe(t, "rest", catDir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := rest.NewCatalog(ctx, "user", addr)
	if err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	if err := cl.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"orders", "returns"} {
		if _, err := cl.CreateTable(ctx, table.Identifier{"sales", n}, schema); err != nil {
			t.Fatal(err)
		}
	}

	run := []string{"rest", addr, "--read-only", "sales.orders,sales.returns", "--peer", "", "--quick", "--ops", "50",
		"--duration", "50ms", "--warmup", "5ms", "--threads", "1", "--history", "", "--dir", filepath.Join(dir, "work")}
	stdout, stderr, code := katbench(t, dir, run...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var measured []string
	for _, r := range parseLines(t, stdout) {
		switch {
		case r.Skipped == "":
			measured = append(measured, r.Scenario)
			if r.Errors != 0 {
				t.Errorf("%s: %d errors (%s)", r.Scenario, r.Errors, r.FirstError)
			}
		case strings.HasPrefix(r.Scenario, "create_table") || strings.HasPrefix(r.Scenario, "commit_table"):
			if r.Skipped != scenarios.ReadOnlyWhy {
				t.Errorf("%s skipped for %q, want the read-only reason", r.Scenario, r.Skipped)
			}
		}
	}
	for _, want := range []string{"control.latency", "load_table.latency", "table_exists.latency", "load_table.throughput.t1"} {
		if !slices.Contains(measured, want) {
			t.Errorf("%s not measured (measured: %v)", want, measured)
		}
	}

	_, stderr, code = katbench(t, dir, append(run, "--scenario", "load_table.latency,create_table.*")...)
	if code != 2 || !strings.Contains(stderr, "--read-only refuses write scenarios") || !strings.Contains(stderr, "create_table.latency") {
		t.Errorf("a write scenario selected read-only: exit %d, %q; want exit 2 naming it", code, stderr)
	}
	_, stderr, code = katbench(t, dir, "rest", addr, "--read-only", "sales.nope", "--quick", "--history", "", "--dir", filepath.Join(dir, "work2"))
	if code == 0 || !strings.Contains(stderr, "table sales.nope does not exist") {
		t.Errorf("a missing table: exit %d, %q; want a refusal naming it", code, stderr)
	}
	_, stderr, code = katbench(t, dir, "rest", addr, "--read-only", "orders", "--quick", "--history", "", "--dir", filepath.Join(dir, "work3"))
	if code != 2 || !strings.Contains(stderr, "NAMESPACE.TABLE") {
		t.Errorf("a table without namespace: exit %d, %q; want exit 2", code, stderr)
	}

	stop()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: catDir, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	nss, err := cat.ListNamespaces(context.Background(), nil)
	if err != nil || len(nss) != 1 || nss[0][0] != "sales" {
		t.Errorf("namespaces after the runs: %v (%v), want only sales", nss, err)
	}
	var tables []string
	for id, err := range cat.ListTables(context.Background(), table.Identifier{"sales"}) {
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, id[len(id)-1])
	}
	slices.Sort(tables)
	if strings.Join(tables, ",") != "orders,returns" {
		t.Errorf("tables after the runs: %v, want orders,returns", tables)
	}
}
