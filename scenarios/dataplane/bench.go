package dataplane

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
)

// ErrFailed is returned by Run when any measured operation failed (an
// error or a checksum mismatch); the lines carry the counts and the first
// error of each scenario.
var ErrFailed = errors.New("dataplane: operations failed")

// Lane is one (target, transport) pair under test: a catalog whose IO
// carries bytes over one transport.
type Lane struct {
	// Target is the competitor name, the lines' target.
	Target string
	// Transport is the transport that really carries the data (http or
	// uring); Requested the one asked for; Fallback why they differ.
	Transport, Requested, Fallback string
	// Catalog creates, loads and commits the lane's tables.
	Catalog catalog.Catalog
	// Location, when set, is the root under which the lane's tables are
	// created (<Location>/<namespace>/<table>) instead of the catalog's
	// warehouse default.
	Location string
	// Params are extra facts for every line of the lane (the competitor's).
	Params map[string]any
	// Facts, when set, are what the lane's transport says of its
	// connections (transport.Describer), added to the params; asked when
	// the lines are written.
	Facts func() map[string]any
}

// Run creates the tables its scenarios need in every lane in
// cfg.Namespace, then measures every selected scenario (see Names: the
// append, the scan, the commit latency by default, opt-in ones when
// cfg.Select names them), in run order, each split into cfg.Rounds rounds
// with the lanes interleaved (bench.Interleave: A B, then B A, …); a
// scenario another one needs (the scan reads what the appends wrote) runs
// whenever that one does.
//
// Lines go to sink per lane and scenario once all rounds are done. Run
// returns an error wrapping ErrFailed when any operation failed, after
// writing every line. Tables are dropped afterwards unless cfg.KeepTables
// (never purged: the caller owns the warehouse). Lanes are used from one
// goroutine at a time.
func Run(ctx context.Context, cfg Config, lanes []Lane, sink results.Sink) (err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return err
	}
	if len(lanes) == 0 {
		return fmt.Errorf("%w: no lanes", ErrBadOption)
	}
	props, _ := TableProps(cfg.Compression, cfg.TargetFileSize) // checked by withDefaults
	if cfg.RowGroupRows > 0 {
		props[table.ParquetRowGroupLimitKey] = strconv.FormatInt(cfg.RowGroupRows, 10)
	}
	plan, err := plan(cfg, len(lanes))
	if err != nil {
		return err
	}
	var kinds []string
	for _, sc := range plan {
		for _, k := range sc.tables {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	states := make([]*laneState, len(lanes))
	for i, l := range lanes {
		states[i] = &laneState{Lane: l, tables: map[string]*table.Table{}}
	}
	if !cfg.KeepTables {
		defer func() { err = errors.Join(err, dropTables(ctx, cfg, states)) }()
	}
	for _, st := range states {
		if err := setup(ctx, cfg, st, kinds, props); err != nil {
			return err
		}
	}

	cells := make([]bench.Cell, len(plan))
	for k, sc := range plan {
		cells[k] = bench.CellFuncs{
			RoundFunc: func(ctx context.Context, round, i int) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				sc.m.round(ctx, cfg, i, states[i], round)
				return nil
			},
			FinishFunc: func(ctx context.Context) error {
				for i, st := range states {
					sc.m.finish(ctx, cfg, i, st)
				}
				return nil
			},
		}
	}
	if err := bench.RunCells(ctx, cells, len(states), cfg.Rounds, cfg.Progress, bench.OverallTask); err != nil {
		return err
	}

	var failed int64
	var firstErr error
	for i, st := range states {
		for _, sc := range plan {
			if !sc.recorded {
				continue
			}
			r := sc.m.record(cfg, i, st, sc.name)
			if r.Errors > 0 {
				failed += r.Errors
				if firstErr == nil {
					firstErr = fmt.Errorf("%s %s over %s: %s", r.Target, r.Scenario, r.Transport, r.FirstError)
				}
			}
			if err := sink.Write(r); err != nil {
				return fmt.Errorf("dataplane: write result: %w", err)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d failed; first: %w", ErrFailed, failed, firstErr)
	}
	return nil
}

// tableName is the lane's name for a table, kind_<transport> (lanes may
// share a catalog), or kind alone for a lane without a transport.
func tableName(cfg Config, st *laneState, kind string) table.Identifier {
	if st.Transport == "" {
		return table.Identifier{cfg.Namespace, kind}
	}
	return table.Identifier{cfg.Namespace, kind + "_" + st.Transport}
}

// setup creates the namespace (tolerating one a sibling lane made) and the
// lane's tables of the given kinds.
func setup(ctx context.Context, cfg Config, st *laneState, kinds []string, props map[string]string) error {
	ns := table.Identifier{cfg.Namespace}
	if err := st.Catalog.CreateNamespace(ctx, ns, nil); err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("dataplane: %s/%s: create namespace %s: %w", st.Target, st.Transport, cfg.Namespace, err)
	}
	st.ok = true
	for _, kind := range kinds {
		id := tableName(cfg, st, kind)
		opts := []catalog.CreateTableOpt{catalog.WithProperties(maps.Clone(props))}
		if st.Location != "" {
			opts = append(opts, catalog.WithLocation(strings.TrimRight(st.Location, "/")+"/"+cfg.Namespace+"/"+id[1]))
		}
		t, err := st.Catalog.CreateTable(ctx, id, Schema(), opts...)
		if err != nil {
			return fmt.Errorf("dataplane: %s/%s: create table %s: %w", st.Target, st.Transport, id, err)
		}
		st.tables[kind] = t
	}
	return nil
}

// dropTables drops every table setup created, then the namespace when it
// is empty, on a context that survives the run's cancellation.
func dropTables(ctx context.Context, cfg Config, states []*laneState) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var errs []error
	for _, st := range states {
		kinds := slices.Sorted(maps.Keys(st.tables))
		for _, kind := range kinds {
			id := tableName(cfg, st, kind)
			if err := st.Catalog.DropTable(ctx, id); err != nil && !errors.Is(err, catalog.ErrNoSuchTable) {
				errs = append(errs, fmt.Errorf("dataplane: drop %s: %w", id, err))
			}
		}
	}
	for _, st := range states {
		if !st.ok {
			continue
		}
		err := st.Catalog.DropNamespace(ctx, table.Identifier{cfg.Namespace})
		if err != nil && !errors.Is(err, catalog.ErrNoSuchNamespace) && !errors.Is(err, catalog.ErrNamespaceNotEmpty) {
			errs = append(errs, fmt.Errorf("dataplane: drop namespace %s: %w", cfg.Namespace, err))
		}
	}
	return errors.Join(errs...)
}

// params are the facts every line of the lane shares.
func (st *laneState) params(cfg Config) map[string]any {
	p := map[string]any{}
	maps.Copy(p, st.Params)
	if st.Facts != nil {
		maps.Copy(p, st.Facts())
	}
	maps.Copy(p, map[string]any{
		"transport":        st.Transport,
		"requested":        st.Requested,
		"warehouse":        cfg.Warehouse,
		"rows":             cfg.Rows,
		"batch_rows":       cfg.BatchRows,
		"target_file_size": cfg.TargetFileSize,
		"compression":      cfg.Compression,
		"row_group_rows":   cfg.RowGroupRows,
		"rounds":           cfg.Rounds,
		"seed":             cfg.Seed,
		"quick":            cfg.Quick,
	})
	if cfg.TargetFileSize == 0 {
		delete(p, "target_file_size") // iceberg-go's default, not ours to state as a number
	}
	if cfg.RowGroupRows == 0 {
		delete(p, "row_group_rows")
	}
	if cfg.TargetFileSize > 0 {
		p["row_group_bytes"] = RowGroupBytes(cfg.TargetFileSize)
	}
	if cfg.ScanConcurrency > 0 {
		p["scan_concurrency"] = cfg.ScanConcurrency
	}
	return p
}

// measure is one typed measurement of a line (see results.Measure), with
// its per-round values when it has them.
type measure struct {
	name   string
	value  float64
	unit   string
	better results.Better
	rounds []float64
}

func (st *laneState) line(cfg Config, scenario string, rec *results.Recorder, wall time.Duration, p map[string]any, first error, ms []measure) results.Record {
	r := cfg.Run.Result(st.Target, scenario, results.Closed, 1, rec, wall, p)
	for _, m := range ms {
		r.SetMeasureRounds(m.name, m.value, m.unit, m.better, m.rounds)
	}
	r.Transport = st.Transport
	r.TransportFallback = st.Fallback
	stamp(&r, cfg)
	if first != nil {
		r.FirstError = first.Error()
	}
	return r
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }
