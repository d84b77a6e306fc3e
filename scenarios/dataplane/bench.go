package dataplane

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
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

// laneState is what Run keeps per lane across rounds.
type laneState struct {
	Lane
	events, commits *table.Table
	want            Checksum // what the lane's events table should hold
	ok              bool     // setup succeeded

	app struct {
		rec, commit      *results.Recorder // per-append total; commit phase
		rows, files, b   int64
		overruns         int64 // batches built beyond the reader's live bound
		write, gen, wall time.Duration
		first            error
		perRound         []float64 // rows/s of each successful append
		peakRSS          int64     // the process's peak RSS after the lane's last append
	}
	scan struct {
		rec                *results.Recorder
		rows, b            int64
		files              int
		plan, verify, wall time.Duration
		first              error
		digest             string
		perRound           []float64 // rows/s of each verified scan
	}
	cl struct {
		rec, commit *results.Recorder
		wall        time.Duration
		first       error
		snapshots   int
	}
}

// Run creates an events table and a commits table per lane in
// cfg.Namespace, then measures, each scenario split into cfg.Rounds rounds
// with the lanes interleaved (A B, then B A, …):
//
//   - data.append.<rows>: each round appends cfg.Rows generated rows to the
//     lane's events table in one transaction, under cfg.MemoryLimit. The
//     line's histogram is the commit phase (new metadata and the catalog
//     commit), one sample per append; params carry rows/s and Parquet MiB/s
//     over the whole append, the files and bytes written, the
//     write/commit/generation split and the process's peak RSS so far.
//   - data.scan: each round scans the whole events table back to Arrow and
//     compares every column's checksum with what was appended; a mismatch
//     is a failed operation. Histogram: one sample per scan.
//   - data.commit.latency: cfg.CommitOps appends of cfg.CommitRows rows
//     (one small file each) to the commits table, timed end to end; the
//     table's row count and snapshot count are checked afterwards.
//
// Lines go to sink per lane and scenario once all rounds are done. Run
// returns an error wrapping ErrFailed when any operation failed, after
// writing every line. Tables are dropped afterwards unless cfg.KeepTables
// (never purged: the caller owns the warehouse). Lanes are used from one goroutine at a time.
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
	states := make([]*laneState, len(lanes))
	for i, l := range lanes {
		st := &laneState{Lane: l}
		st.app.rec, st.app.commit = results.NewRecorder(), results.NewRecorder()
		st.scan.rec = results.NewRecorder()
		st.cl.rec, st.cl.commit = results.NewRecorder(), results.NewRecorder()
		states[i] = st
	}
	if !cfg.KeepTables {
		defer func() { err = errors.Join(err, dropTables(ctx, cfg, states)) }()
	}
	for _, st := range states {
		if err := setup(ctx, cfg, st, props); err != nil {
			return err
		}
	}

	appendName := AppendName(cfg.Rows)
	prog := newProgress(cfg, len(states), appendName)
	defer prog.finish()
	if cfg.selects(appendName) || cfg.selects(ScanName) {
		var want Checksum // identical for every lane: computed once a round, untimed
		wantRound := -1
		err := scenarios.Interleave(cfg.Rounds, len(states), func(round, i int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			from := int64(round) * cfg.Rows
			if round != wantRound {
				wantRound, want = round, Checksum{}
				want.AddRows(cfg.Seed, from, cfg.Rows)
			}
			st := states[i]
			withMemoryLimit(cfg.MemoryLimit, func() { st.appendRound(ctx, cfg, from, want) })
			st.app.peakRSS = peakRSS()
			prog.step()
			return nil
		})
		if err != nil {
			return err
		}
	}
	if cfg.selects(ScanName) {
		err := scenarios.Interleave(cfg.Rounds, len(states), func(_, i int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			states[i].scanRound(ctx, cfg)
			prog.step()
			return nil
		})
		if err != nil {
			return err
		}
	}
	if cfg.selects(CommitLatency) && cfg.CommitOps > 0 {
		done := make([]int, len(states)) // small appends so far, per lane
		err := scenarios.Interleave(cfg.Rounds, len(states), func(round, i int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := cfg.CommitOps / cfg.Rounds
			if round < cfg.CommitOps%cfg.Rounds {
				n++
			}
			states[i].commitRound(ctx, cfg, done[i], n)
			done[i] += n
			prog.step()
			return nil
		})
		if err != nil {
			return err
		}
		for i, st := range states {
			st.checkCommits(ctx, cfg, done[i])
		}
	}

	var failed int64
	var firstErr error
	for _, st := range states {
		var recs []results.Record
		if cfg.selects(appendName) {
			recs = append(recs, st.appendRecord(cfg, appendName))
			if st.app.rec.Count() > 0 {
				cfg.Baseline.add(st.app.b, st.app.files)
			}
		}
		if cfg.selects(ScanName) {
			recs = append(recs, st.scanRecord(cfg))
		}
		if cfg.selects(CommitLatency) && cfg.CommitOps > 0 {
			recs = append(recs, st.commitRecord(cfg))
		}
		for _, r := range recs {
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
// lane's two tables.
func setup(ctx context.Context, cfg Config, st *laneState, props map[string]string) error {
	ns := table.Identifier{cfg.Namespace}
	if err := st.Catalog.CreateNamespace(ctx, ns, nil); err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("dataplane: %s/%s: create namespace %s: %w", st.Target, st.Transport, cfg.Namespace, err)
	}
	var err error
	for _, t := range []struct {
		kind string
		dst  **table.Table
	}{{"events", &st.events}, {"commits", &st.commits}} {
		id := tableName(cfg, st, t.kind)
		opts := []catalog.CreateTableOpt{catalog.WithProperties(maps.Clone(props))}
		if st.Location != "" {
			opts = append(opts, catalog.WithLocation(strings.TrimRight(st.Location, "/")+"/"+cfg.Namespace+"/"+id[1]))
		}
		*t.dst, err = st.Catalog.CreateTable(ctx, id, Schema(), opts...)
		if err != nil {
			return fmt.Errorf("dataplane: %s/%s: create table %s: %w", st.Target, st.Transport, id, err)
		}
	}
	st.ok = true
	return nil
}

// dropTables drops every table setup created, then the namespace when it
// is empty, on a context that survives
// the run's cancellation.
func dropTables(ctx context.Context, cfg Config, states []*laneState) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var errs []error
	for _, st := range states {
		for _, t := range []struct {
			kind string
			tbl  *table.Table
		}{{"events", st.events}, {"commits", st.commits}} {
			if t.tbl == nil {
				continue
			}
			id := tableName(cfg, st, t.kind)
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

// appendRound appends rows [from, from+cfg.Rows) to the events table.
func (st *laneState) appendRound(ctx context.Context, cfg Config, from int64, want Checksum) {
	rdr, err := NewReader(nil, cfg.Seed, from, cfg.Rows, cfg.BatchRows)
	if err == nil {
		defer rdr.Release()
		rdr.LimitLive(LiveBatches)
		var res AppendResult
		res, err = Append(ctx, st.events, rdr)
		if res.Table != nil {
			st.events = res.Table
		}
		if err == nil {
			st.want.Merge(want)
			st.app.rec.Record(res.Total())
			st.app.commit.Record(res.Commit)
			st.app.rows += res.Rows
			st.app.perRound = append(st.app.perRound, float64(res.Rows)/res.Total().Seconds())
			st.app.files += res.Files
			st.app.b += res.Bytes
			st.app.write += res.Write
			st.app.gen += res.Gen
			st.app.overruns += res.Overruns
			st.app.wall += res.Total()
			return
		}
	}
	st.app.rec.Error()
	st.app.commit.Error()
	if st.app.first == nil {
		st.app.first = err
	}
}

// scanRound scans the events table and verifies it against what the lane
// appended successfully.
func (st *laneState) scanRound(ctx context.Context, cfg Config) {
	res, err := Scan(ctx, st.events, cfg.ScanConcurrency)
	if err == nil {
		err = Verify(st.want, res.Sum)
	}
	st.scan.digest = res.Sum.Digest()
	if err != nil {
		st.scan.rec.Error()
		if st.scan.first == nil {
			st.scan.first = err
		}
		return
	}
	st.scan.rec.Record(res.Total)
	st.scan.rows += res.Rows
	st.scan.perRound = append(st.scan.perRound, float64(res.Rows)/res.Total.Seconds())
	st.scan.b += res.Bytes
	st.scan.files = res.Files
	st.scan.plan += res.Plan
	st.scan.verify += res.Verify
	st.scan.wall += res.Total
}

// commitSeed is the generator seed of the commits table, apart from the
// events table's rows.
func commitSeed(cfg Config) uint64 { return cfg.Seed ^ 0xc0331 }

// commitRound does n small appends, the first being the done-th overall.
func (st *laneState) commitRound(ctx context.Context, cfg Config, done, n int) {
	for k := range n {
		from := int64(done+k) * int64(cfg.CommitRows)
		rdr, err := NewReader(nil, commitSeed(cfg), from, int64(cfg.CommitRows), cfg.CommitRows)
		if err != nil {
			st.clFail(err)
			continue
		}
		res, err := Append(ctx, st.commits, rdr)
		rdr.Release()
		if res.Table != nil {
			st.commits = res.Table
		}
		if err != nil {
			st.clFail(err)
			continue
		}
		st.cl.rec.Record(res.Total())
		st.cl.commit.Record(res.Commit)
		st.cl.wall += res.Total()
	}
}

func (st *laneState) clFail(err error) {
	st.cl.rec.Error()
	if st.cl.first == nil {
		st.cl.first = err
	}
}

// checkCommits verifies, untimed, that the commits table holds exactly the
// rows of the successful small appends and one snapshot per append. A
// discrepancy is counted as a failed operation.
func (st *laneState) checkCommits(ctx context.Context, cfg Config, attempted int) {
	ok := st.cl.rec.Count()
	st.cl.snapshots = len(st.commits.Metadata().Snapshots())
	var err error
	switch {
	case int64(st.cl.snapshots) != ok:
		err = fmt.Errorf("commits table has %d snapshots after %d successful appends", st.cl.snapshots, ok)
	case ok == int64(attempted):
		var want Checksum
		want.AddRows(commitSeed(cfg), 0, int64(attempted)*int64(cfg.CommitRows))
		res, serr := Scan(ctx, st.commits, cfg.ScanConcurrency)
		if err = serr; err == nil {
			err = Verify(want, res.Sum)
		}
		if err != nil {
			err = fmt.Errorf("verify commits table: %w", err)
		}
	}
	if err != nil {
		st.clFail(err)
	}
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

// measure is one typed measurement of a line (see results.Measure).
type measure struct {
	name   string
	value  float64
	unit   string
	better results.Better
}

func (st *laneState) line(cfg Config, scenario string, rec *results.Recorder, wall time.Duration, p map[string]any, first error, ms []measure) results.Record {
	r := cfg.Run.Result(st.Target, scenario, results.Closed, 1, rec, wall, p)
	for _, m := range ms {
		r.SetMeasure(m.name, m.value, m.unit, m.better)
	}
	r.Transport = st.Transport
	r.TransportFallback = st.Fallback
	if first != nil {
		r.FirstError = first.Error()
	}
	return r
}

func (st *laneState) appendRecord(cfg Config, name string) results.Record {
	p := st.params(cfg)
	a := &st.app
	p["appends"] = a.rec.Count()
	var ms []measure
	if a.rec.Count() > 0 && a.wall > 0 {
		p["rows_total"] = a.rows
		p["rows_s_rounds"] = a.perRound
		p["write_s"] = a.write.Seconds()
		p["gen_s"] = a.gen.Seconds()
		p["commit_s"] = (a.wall - a.write).Seconds()
		p["append_p50_us"] = us(a.rec.Percentile(50))
		p["append_max_us"] = us(a.rec.Percentile(100))
		ms = append(ms,
			measure{"rows_s", float64(a.rows) / a.wall.Seconds(), results.UnitRowsPerSec, results.Higher},
			measure{"mib_s", float64(a.b) / a.wall.Seconds() / (1 << 20), results.UnitMiBPerSec, results.Higher},
			measure{"files", float64(a.files), results.UnitCount, ""},
			measure{"parquet_bytes", float64(a.b), results.UnitBytes, ""})
		if a.files > 0 {
			ms = append(ms, measure{"avg_file_bytes", float64(a.b / a.files), results.UnitBytes, ""})
		}
	}
	if a.overruns > 0 {
		// The batch bound did not hold (see Reader.LimitLive): peak memory
		// on this line is not what the bound promises.
		p["live_batch_overruns"] = a.overruns
	}
	if cfg.MemoryLimit > 0 {
		p["go_memory_limit_mib"] = float64(cfg.MemoryLimit) / (1 << 20)
	}
	if a.peakRSS > 0 {
		// getrusage's ru_maxrss: every lane and target before this one, and
		// an in-process S3 store's objects, are in it too.
		p["peak_rss_mib"] = float64(a.peakRSS) / (1 << 20)
	}
	p["hist_of"] = "commit phase (metadata file + catalog commit) per append"
	return st.line(cfg, name, a.commit, a.wall, p, a.first, ms)
}

func (st *laneState) scanRecord(cfg Config) results.Record {
	p := st.params(cfg)
	s := &st.scan
	var ms []measure
	if s.rec.Count() > 0 && s.wall > 0 {
		p["rows_total"] = s.rows
		p["rows_s_rounds"] = s.perRound
		p["plan_s"] = s.plan.Seconds()
		p["verify_s"] = s.verify.Seconds()
		ms = append(ms,
			measure{"rows_s", float64(s.rows) / s.wall.Seconds(), results.UnitRowsPerSec, results.Higher},
			measure{"mib_s", float64(s.b) / s.wall.Seconds() / (1 << 20), results.UnitMiBPerSec, results.Higher},
			measure{"files", float64(s.files), results.UnitCount, ""},
			measure{"parquet_bytes", float64(s.b), results.UnitBytes, ""})
	}
	if s.digest != "" {
		p["checksum"] = s.digest
	}
	// The share of scans whose every column matched what was appended: 1
	// when all did (and at least one ran), else less.
	if n := s.rec.Count() + s.rec.Errors(); n > 0 {
		ms = append(ms, measure{"checksum_ok", float64(s.rec.Count()) / float64(n), results.UnitRatio, results.Higher})
	}
	p["hist_of"] = "one full scan with checksum"
	return st.line(cfg, ScanName, s.rec, s.wall, p, s.first, ms)
}

func (st *laneState) commitRecord(cfg Config) results.Record {
	p := st.params(cfg)
	c := &st.cl
	p["commit_rows"] = cfg.CommitRows
	p["commit_ops"] = cfg.CommitOps
	p["snapshots"] = c.snapshots
	if c.commit.Count() > 0 {
		p["catalog_commit_p50_us"] = us(c.commit.Percentile(50))
		p["catalog_commit_p99_us"] = us(c.commit.Percentile(99))
	}
	p["hist_of"] = "one small append end to end (Parquet PUT, manifests, metadata, catalog commit)"
	return st.line(cfg, CommitLatency, c.rec, c.wall, p, c.first, nil)
}

// progress reports a run's measurements (one per lane, scenario and
// round) to Config.Progress under one task.
type progress struct {
	p           scenarios.Progress
	done, total int
}

func newProgress(cfg Config, lanes int, appendName string) *progress {
	per := 0
	for _, name := range []string{appendName, ScanName, CommitLatency} {
		if name == appendName && (cfg.selects(name) || cfg.selects(ScanName)) || name != appendName && cfg.selects(name) {
			per++
		}
	}
	p := &progress{p: cfg.Progress, total: per * lanes * cfg.Rounds}
	scenarios.Step(p.p, scenarios.OverallTask, 0, p.total)
	return p
}

func (p *progress) step() {
	p.done++
	scenarios.Step(p.p, scenarios.OverallTask, min(p.done, p.total), p.total)
}

// finish completes the task also when the run ended early.
func (p *progress) finish() {
	if p.done < p.total {
		scenarios.Step(p.p, scenarios.OverallTask, p.total, p.total)
	}
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }
