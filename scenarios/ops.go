package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
)

// The operations the built-in scenarios time. Each returns an Op that is
// safe for concurrent use by several workers unless it says otherwise.

// picks returns n pseudo-random indexes below m from a fixed seed, so every
// competitor gets the same access sequence.
func picks(n, m int) []int {
	if m == 0 {
		return nil
	}
	r := fixedRand()
	out := make([]int, n)
	for i := range out {
		out[i] = r.IntN(m)
	}
	return out
}

// fixedRand is the seeded source of every access order.
func fixedRand() *rand.Rand { return rand.New(rand.NewPCG(42, 7)) }

// loadOp loads tables in a fixed pseudo-random order.
func loadOp(c competitors.Competitor, d *dataset.Dataset, n int) Op {
	cat := c.Catalog()
	order := picks(min(max(n, 1), 1<<16), len(d.Tables))
	return func(ctx context.Context, w, i int) error {
		_, err := cat.LoadTable(ctx, d.Tables[order[(i+w*7919)%len(order)]])
		return err
	}
}

func resolveOp(r competitors.MetadataResolver, d *dataset.Dataset, n int) Op {
	order := picks(min(max(n, 1), 1<<16), len(d.Tables))
	return func(ctx context.Context, _, i int) error {
		_, err := r.ResolveMetadata(ctx, d.Tables[order[i%len(order)]])
		return err
	}
}

// existsOp alternates hits and misses; with no tables it asks only misses.
// An answer that contradicts the dataset is an error, not a sample.
func existsOp(c competitors.Competitor, d *dataset.Dataset, n int) Op {
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

// createOp creates tables named prefix_<i> in ns and reports each one made
// to created. Worker w uses names of its own.
func createOp(cat icecatalog.Catalog, ns table.Identifier, prefix string, created func(...table.Identifier)) Op {
	return func(ctx context.Context, w, i int) error {
		id := append(append(table.Identifier{}, ns...), fmt.Sprintf("%s_w%d_%06d", prefix, w, i))
		_, err := cat.CreateTable(ctx, id, dataset.Schema)
		if err == nil {
			created(id)
		}
		return err
	}
}

// commitOp commits one set-properties update per operation, round robin
// over tables, each guarded by the table's UUID. One worker only.
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
func warmOp(c competitors.Competitor, d *dataset.Dataset) Op {
	ops := []Op{existsOp(c, d, 1<<12)}
	if len(d.Tables) > 0 {
		ops = append(ops, loadOp(c, d, 1<<12))
	}
	if ctl, ok := competitors.As[competitors.Controller](c); ok {
		ops = append(ops, controlOp(ctl))
	}
	return func(ctx context.Context, w, i int) error { return ops[i%len(ops)](ctx, w, i) }
}
