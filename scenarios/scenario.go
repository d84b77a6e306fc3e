// Package scenarios holds katbench's shared catalog scenarios and the runner
// that drives every competitor through them identically. A scenario knows a
// competitor only through iceberg-go's catalog.Catalog and the optional
// capabilities in package competitors; it never asks who it is driving.
package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/competitors"
)

// Scenario names. Throughput scenarios are ThroughputPrefix + "t<N>" and
// durability-sweep lines are DurabilityPrefix + "<mode>".
const (
	Control          = "control.latency"
	LoadTable        = "load_table.latency"
	ResolveMetadata  = "resolve_metadata.latency"
	TableExists      = "table_exists.latency"
	CreateTable      = "create_table.latency"
	CommitTable      = "commit_table.latency"
	ThroughputPrefix = "load_table.throughput."
	DurabilityPrefix = "create_table.durability."
)

// DefaultThreads are the throughput levels.
var DefaultThreads = []int{1, 2, 4, 8, 16, 32}

// DurabilityModes are the modes of the durability sweep.
var DurabilityModes = []string{"immediate", "eventual", "none"}

// Names lists every scenario name for the given throughput levels, in the
// order they run.
func Names(threads []int) []string {
	names := []string{Control, LoadTable, ResolveMetadata, TableExists}
	for _, t := range threads {
		names = append(names, ThroughputName(t))
	}
	names = append(names, CreateTable, CommitTable)
	for _, m := range DurabilityModes {
		names = append(names, DurabilityPrefix+m)
	}
	return names
}

// ThroughputName is the scenario name of the throughput level t.
func ThroughputName(t int) string { return ThroughputPrefix + "t" + strconv.Itoa(t) }

// Selector chooses scenarios by glob (path.Match syntax, comma-separated
// alternatives). The empty selector chooses everything.
type Selector []string

// ParseSelector validates globs against the known names: a glob that
// matches no scenario is an error naming the valid ones.
func ParseSelector(globs string, threads []int) (Selector, error) {
	if strings.TrimSpace(globs) == "" {
		return nil, nil
	}
	names := Names(threads)
	var sel Selector
	for _, g := range strings.Split(globs, ",") {
		g = strings.TrimSpace(g)
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("bad scenario glob %q: %w", g, err)
		}
		matched := false
		for _, n := range names {
			if ok, _ := path.Match(g, n); ok {
				matched = true
				break
			}
		}
		if !matched {
			return nil, fmt.Errorf("scenario %q matches nothing (valid: %s)", g, strings.Join(names, ", "))
		}
		sel = append(sel, g)
	}
	return sel, nil
}

// Selects reports whether name is chosen.
func (s Selector) Selects(name string) bool {
	if len(s) == 0 {
		return true
	}
	for _, g := range s {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// picks returns n pseudo-random indexes below m from a fixed seed, so every
// competitor gets the same access sequence.
func picks(n, m int) []int {
	if m == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(42, 7))
	out := make([]int, n)
	for i := range out {
		out[i] = r.IntN(m)
	}
	return out
}

// loadOp loads tables in a fixed pseudo-random order.
func loadOp(c competitors.Competitor, d *Dataset, n int) Op {
	cat := c.Catalog()
	order := picks(min(max(n, 1), 1<<16), len(d.Tables))
	return func(ctx context.Context, w, i int) error {
		_, err := cat.LoadTable(ctx, d.Tables[order[(i+w*7919)%len(order)]])
		return err
	}
}

func resolveOp(r competitors.MetadataResolver, d *Dataset, n int) Op {
	order := picks(min(max(n, 1), 1<<16), len(d.Tables))
	return func(ctx context.Context, _, i int) error {
		_, err := r.ResolveMetadata(ctx, d.Tables[order[i%len(order)]])
		return err
	}
}

// existsOp alternates hits and misses; with no tables it asks only misses.
// An answer that contradicts the dataset is an error, not a sample.
func existsOp(c competitors.Competitor, d *Dataset, n int) Op {
	cat := c.Catalog()
	misses := d.Misses(256)
	order := picks(min(max(n, 1), 1<<16), len(d.Tables))
	return func(ctx context.Context, _, i int) error {
		hit := len(d.Tables) > 0 && i%2 == 0
		id := misses[i%len(misses)]
		if hit {
			id = d.Tables[order[i%len(order)]]
		}
		ok, err := cat.CheckTableExists(ctx, id)
		if err == nil && ok != hit {
			err = fmt.Errorf("table_exists %s: got %v, want %v", strings.Join(id, "."), ok, hit)
		}
		return err
	}
}

// createOp creates tables named prefix_<i> in ns and remembers them.
func createOp(c competitors.Competitor, ns table.Identifier, prefix string, created *[]table.Identifier) Op {
	cat := c.Catalog()
	return func(ctx context.Context, _, i int) error {
		id := append(append(table.Identifier{}, ns...), fmt.Sprintf("%s_%06d", prefix, i))
		_, err := cat.CreateTable(ctx, id, Schema)
		if err == nil {
			*created = append(*created, id)
		}
		return err
	}
}

// commitOp commits one set-properties update per operation, round robin
// over tables, each guarded by the table's UUID.
func commitOp(c competitors.Competitor, tables []table.Identifier, uuids []uuid.UUID) Op {
	cat := c.Catalog()
	reqs := make([][]table.Requirement, len(tables))
	for i, u := range uuids {
		reqs[i] = []table.Requirement{table.AssertTableUUID(u)}
	}
	return func(ctx context.Context, _, i int) error {
		k := i % len(tables)
		_, _, err := cat.CommitTable(ctx, tables[k], reqs[k], []table.Update{
			table.NewSetPropertiesUpdate(iceberg.Properties{"katbench.commit": strconv.Itoa(i)}),
		})
		return err
	}
}

func controlOp(ctl competitors.Controller) Op {
	return func(ctx context.Context, _, _ int) error { return ctl.Control(ctx) }
}

// warmOp is the one-time server warm-up: loads, existence checks and, where
// the path has one, control round trips, in the mix the scenarios use.
func warmOp(c competitors.Competitor, d *Dataset) Op {
	ops := []Op{existsOp(c, d, 1<<12)}
	if len(d.Tables) > 0 {
		ops = append(ops, loadOp(c, d, 1<<12))
	}
	if ctl, ok := competitors.As[competitors.Controller](c); ok {
		ops = append(ops, controlOp(ctl))
	}
	return func(ctx context.Context, w, i int) error { return ops[i%len(ops)](ctx, w, i) }
}
