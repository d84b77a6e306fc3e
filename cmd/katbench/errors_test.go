package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// liar is the embedded catalog answering "exists" to every table: a wrong
// answer, which table_exists counts as a failed operation.
type liar struct{ icecatalog.Catalog }

func (liar) CheckTableExists(context.Context, table.Identifier) (bool, error) { return true, nil }

type liarCompetitor struct{ competitors.Competitor }

func (l liarCompetitor) Catalog() icecatalog.Catalog { return liar{l.Competitor.Catalog()} }

func init() {
	competitors.Register(competitors.Factory{
		Name: "test-liar", Description: "embedded, answering every existence check with yes (tests only)",
		New: func(ctx context.Context, cfg competitors.Config) (competitors.Competitor, error) {
			emb, err := competitors.Lookup("embedded")
			if err != nil {
				return nil, err
			}
			c, err := emb.New(ctx, cfg)
			if err != nil {
				return nil, err
			}
			return liarCompetitor{c}, nil
		},
	})
}

// runInProcess runs runBench as `katbench run` would, in this process.
func runInProcess(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var f scenarios.Command
	cmd := &cobra.Command{}
	f.RegisterFlags(cmd.Flags(), os.Getenv)
	if err := cmd.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetContext(context.Background())
	err := runBench(cmd, &f, parseTargets(cmd.Flags().Args()))
	return out.String(), err
}

// TestFailedOperationsTurnTheRunRed: a line with errors makes the run fail
// (exit 1) unless --allow-errors, which every measured line then records.
func TestFailedOperationsTurnTheRunRed(t *testing.T) {
	common := []string{"test-liar", "--quick", "--tables", "4", "--ops", "20", "--warmup", "1ms",
		"--scenario", "table_exists.latency", "--dir", t.TempDir()}
	out, err := runInProcess(t, common...)
	if !errors.Is(err, results.ErrFailedOps) {
		t.Fatalf("run with failed operations returned %v, want ErrFailedOps", err)
	}
	var rec map[string]any
	if jerr := json.Unmarshal([]byte(strings.TrimSpace(out)), &rec); jerr != nil {
		t.Fatalf("stdout: %q", out)
	}
	if rec["errors"].(float64) == 0 || rec["allow_errors"] != nil {
		t.Errorf("line: errors %v allow_errors %v", rec["errors"], rec["allow_errors"])
	}
	out, err = runInProcess(t, append(common, "--allow-errors")...)
	if err != nil {
		t.Fatalf("--allow-errors run returned %v", err)
	}
	if jerr := json.Unmarshal([]byte(strings.TrimSpace(out)), &rec); jerr != nil || rec["allow_errors"] != true {
		t.Errorf("--allow-errors line lacks allow_errors: %s", out)
	}
}

// TestNoHistoryByDefault: an ad-hoc run writes no history file.
func TestNoHistoryByDefault(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := katbench(t, dir, "embedded", "--peer", "", "--quick", "--tables", "4", "--ops", "20",
		"--warmup", "1ms", "--scenario", "table_exists.latency")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bench_history.jsonl")); !os.IsNotExist(err) {
		t.Errorf("an ad-hoc run wrote bench_history.jsonl (stat: %v)", err)
	}
}
