package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "create_namespace.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 51,
			Doc:   "create a namespace inside the dataset's work namespace (the namespaces made are dropped after the cell, outside its measurement)",
			Needs: []bench.Requirement{NeedDataset, NeedTables},
		},
		Run: runCreateNamespace,
	})
}

// runCreateNamespace measures CreateNamespace at the catalog's size, then
// drops what it made: a growth sweep measures it again at the next size
// with the same names.
func runCreateNamespace(ctx context.Context, env *Env) (Outcome, error) {
	cat := env.Competitor.Catalog()
	var (
		mu   sync.Mutex
		made []table.Identifier
	)
	prefix := fmt.Sprintf("ns_r%d", env.Round)
	op := func(ctx context.Context, w, i int) error {
		ns := append(append(table.Identifier{}, env.Dataset.Work...), fmt.Sprintf("%s_w%d_%06d", prefix, w, i))
		err := cat.CreateNamespace(ctx, ns, nil)
		if err == nil {
			mu.Lock()
			made = append(made, ns)
			mu.Unlock()
		}
		return err
	}
	m := writeLatency(ctx, env.Opts, op)
	if err := dropNamespaces(context.WithoutCancel(ctx), cat, made, env.Opts.Parallel); err != nil {
		return Outcome{}, fmt.Errorf("create_namespace: drop the namespaces it made: %w", err)
	}
	return Outcome{M: m}, nil
}

// dropNamespaces drops nss with parallel workers, retried as SetupRetry
// says; one already gone is not an error.
func dropNamespaces(ctx context.Context, cat icecatalog.Catalog, nss []table.Identifier, parallel int) error {
	_, err := dataset.ParallelDo(ctx, nss, parallel, func(ctx context.Context, ns table.Identifier) error {
		return dataset.SetupRetry.Do(ctx, func(bool) error {
			if err := cat.DropNamespace(ctx, ns); err != nil && !errors.Is(err, icecatalog.ErrNoSuchNamespace) {
				return fmt.Errorf("drop namespace %s: %w", strings.Join(ns, "."), err)
			}
			return nil
		})
	}, nil)
	return err
}
