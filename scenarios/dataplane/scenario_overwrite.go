package dataplane

import (
	"context"
	"fmt"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// OverwriteName is the overwrite scenario's name.
const OverwriteName = "data.overwrite"

// data.overwrite (opt-in: run it with --scenario data.overwrite): each
// round replaces the whole content of the lane's overwrite table with
// Config.CommitRows×10 fresh rows in one transaction (iceberg-go's
// Overwrite: the old files deleted from the new snapshot, the new ones
// added, one catalog commit), timed end to end. Afterwards, untimed, the
// table must hold exactly the last round's rows (checksum) and one
// snapshot per successful overwrite; a discrepancy is a failed
// operation.
func init() {
	register(scenario{
		doc: "whole-table overwrites, checksum verified",
		key: "overwrite", order: 40, optIn: true, tables: []string{"overwrite"},
		name:  func(Config) string { return OverwriteName },
		start: func(_ Config, lanes int) measurement { return &overwriteRun{lanes: make([]overwriteLane, lanes)} },
	})
}

type overwriteRun struct{ lanes []overwriteLane }

type overwriteLane struct {
	rec   *results.Recorder
	wall  time.Duration
	rows  int64
	first error
	last  int // the round whose rows the table holds; -1 before any
}

func overwriteRows(cfg Config) int64 { return int64(cfg.CommitRows) * 10 }

// overwriteSeed keeps the overwrite's rows apart from the other tables'.
func overwriteSeed(cfg Config) uint64 { return cfg.Seed ^ 0x0e5 }

func (o *overwriteRun) round(ctx context.Context, cfg Config, i int, l *laneState, round int) {
	st := &o.lanes[i]
	if st.rec == nil {
		st.rec, st.last = results.NewRecorder(), -1
	}
	n := overwriteRows(cfg)
	rdr, err := NewReader(nil, overwriteSeed(cfg), int64(round)*n, n, cfg.BatchRows)
	if err == nil {
		t0 := time.Now()
		tbl, oerr := l.tables["overwrite"].Overwrite(ctx, rdr, nil)
		d := time.Since(t0)
		rdr.Release()
		if err = oerr; err == nil {
			l.tables["overwrite"] = tbl
			st.rec.Record(d)
			st.wall += d
			st.rows += n
			st.last = round
			return
		}
		err = fmt.Errorf("overwrite with %d rows: %w", n, err)
	}
	st.fail(err)
}

func (st *overwriteLane) fail(err error) {
	st.rec.Error()
	if st.first == nil {
		st.first = err
	}
}

// finish checks that the table holds exactly the last successful round's
// rows, and one snapshot per successful overwrite.
func (o *overwriteRun) finish(ctx context.Context, cfg Config, i int, l *laneState) {
	st := &o.lanes[i]
	if st.rec == nil || st.last < 0 {
		return
	}
	tbl := l.tables["overwrite"]
	if got, want := int64(len(tbl.Metadata().Snapshots())), st.rec.Count(); got != want {
		st.fail(fmt.Errorf("overwrite table has %d snapshots after %d successful overwrites", got, want))
		return
	}
	n := overwriteRows(cfg)
	var want Checksum
	want.AddRows(overwriteSeed(cfg), int64(st.last)*n, n)
	res, err := Scan(ctx, tbl, cfg.ScanConcurrency)
	if err == nil {
		err = Verify(want, res.Sum)
	}
	if err != nil {
		st.fail(fmt.Errorf("verify overwrite table: %w", err))
	}
}

func (o *overwriteRun) record(cfg Config, i int, l *laneState, name string) results.Record {
	st := &o.lanes[i]
	if st.rec == nil {
		st.rec = results.NewRecorder()
	}
	p := l.params(cfg)
	p["overwrite_rows"] = overwriteRows(cfg)
	var ms []measure
	if st.rec.Count() > 0 && st.wall > 0 {
		ms = append(ms, measure{"rows_s", float64(st.rows) / st.wall.Seconds(), results.UnitRowsPerSec, results.Higher, nil})
	}
	p["hist_of"] = "one overwrite of the whole table end to end (Parquet PUT, manifests with the old files deleted, metadata, catalog commit)"
	return l.line(cfg, name, st.rec, st.wall, p, st.first, ms)
}
