package dataset

import (
	"context"
	"fmt"
	"slices"
	"strings"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
)

// SweepShape is the dataset shape at size tables of a growth sweep over
// sizes: the namespace tree of the largest size at every size, so a
// larger size only adds tables to the leaves a smaller one made (Grow),
// and a leaf's siblings grow with the size. With perNamespace > 0 a
// leaf holds that many tables at every size instead, and the leaves, one
// level under the root, grow in number: Grow adds namespaces.
func SweepShape(sizes []int, size, perNamespace int) Shape {
	if perNamespace > 0 {
		return Shape{Width: max(1, (size+perNamespace-1)/perNamespace), Depth: 1, TablesPerLeaf: perNamespace}
	}
	s := ShapeFor(slices.Max(sizes))
	s.TablesPerLeaf = max(1, (size+s.Leaves()-1)/s.Leaves())
	return s
}

// leafNamespaces are the namespaces of a dataset of depth depth that
// hold its tables (leaves lists those that hold some already).
func (d *Dataset) leafNamespaces(depth int) []table.Identifier {
	var out []table.Identifier
	for _, ns := range d.Namespaces {
		if len(ns) == len(d.Root)+depth && !slices.Equal(ns, d.Work) {
			out = append(out, ns)
		}
	}
	if depth == 0 {
		out = []table.Identifier{d.Root}
	}
	return out
}

// Grow adds tables to d until every leaf holds shape.TablesPerLeaf, with
// parallel workers, reusing the tables it has: a growth sweep's next size
// starts from the last one. shape's width and depth must be those d was
// built with. The tables made are appended to d.Tables (so Drop removes
// them) even when it stops early; the error says why it stopped.
func (d *Dataset) Grow(ctx context.Context, cat icecatalog.Catalog, shape Shape, parallel int, progress bench.Progress) error {
	return d.grow(ctx, cat, shape, func(todo []table.Identifier) ([]table.Identifier, error) {
		return ParallelDo(ctx, todo, parallel, createDatasetTable(cat), func(done int) {
			bench.Step(progress, "tables", len(d.Tables)+done, len(d.Tables)+len(todo))
		})
	})
}

// GrowBulk is Grow creating the tables through bulk's CreateTables: the
// competitor's own faster path for loading many tables
// (competitors.BulkCreator). Namespaces are still made on cat.
func (d *Dataset) GrowBulk(ctx context.Context, cat icecatalog.Catalog, bulk competitors.BulkCreator, shape Shape, parallel int, progress bench.Progress) error {
	return d.grow(ctx, cat, shape, func(todo []table.Identifier) ([]table.Identifier, error) {
		return bulk.CreateTables(ctx, todo, Schema, parallel, func(done int) {
			bench.Step(progress, "tables", len(d.Tables)+done, len(d.Tables)+len(todo))
		})
	})
}

// grow computes the tables shape adds to d and makes them with create,
// which returns those it made even when it fails. A shape of one level
// with more leaves than d has gets the missing leaf namespaces first.
func (d *Dataset) grow(ctx context.Context, cat icecatalog.Catalog, shape Shape, create func(todo []table.Identifier) ([]table.Identifier, error)) error {
	if err := shape.Validate(); err != nil {
		return err
	}
	have := make(map[string]bool, len(d.Tables))
	for _, t := range d.Tables {
		have[strings.Join(t, "\x00")] = true
	}
	leaves := d.leafNamespaces(shape.Depth)
	if shape.Depth == 1 && len(leaves) < shape.Leaves() {
		var err error
		if leaves, err = d.addLeaves(ctx, cat, leaves, shape.Leaves()); err != nil {
			return err
		}
	}
	if len(leaves) != shape.Leaves() {
		return fmt.Errorf("grow: the dataset has %d leaf namespaces, the shape %+v wants %d", len(leaves), shape, shape.Leaves())
	}
	var todo []table.Identifier
	for t := range shape.TablesPerLeaf { // leaf after leaf at each index: every leaf grows evenly
		for _, leaf := range leaves {
			id := append(slices.Clone(leaf), fmt.Sprintf("t%06d", t))
			if !have[strings.Join(id, "\x00")] {
				todo = append(todo, id)
			}
		}
	}
	created, err := create(todo)
	d.Tables = append(d.Tables, created...)
	// Leaf after leaf, each leaf's tables in name order, as Build makes
	// them: the scenarios read a leaf's tables as one run of d.Tables.
	slices.SortFunc(d.Tables, func(a, b table.Identifier) int { return slices.Compare(a, b) })
	return err
}

// addLeaves creates the leaf namespaces of a one-level dataset from
// len(leaves) up to want, named as Build names them, and returns every
// leaf. The namespaces made are added to d.Namespaces (so Drop removes
// them) even when it fails.
func (d *Dataset) addLeaves(ctx context.Context, cat icecatalog.Catalog, leaves []table.Identifier, want int) ([]table.Identifier, error) {
	for i := len(leaves); i < want; i++ {
		ns := append(slices.Clone(d.Root), fmt.Sprintf("ns%d", i))
		if err := createDatasetNamespace(ctx, cat, ns); err != nil {
			return leaves, fmt.Errorf("create namespace %s: %w", strings.Join(ns, "."), err)
		}
		d.Namespaces = append(d.Namespaces, ns)
		leaves = append(leaves, ns)
	}
	return leaves, nil
}
