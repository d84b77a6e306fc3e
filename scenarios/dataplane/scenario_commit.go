package dataplane

import (
	"context"
	"fmt"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// data.commit.latency: Config.CommitOps appends of Config.CommitRows rows
// (one small file each) to the commits table, split over the rounds and
// timed end to end; the table's row count and snapshot count are checked
// afterwards.
func init() {
	register(scenario{
		doc: "small appends (one small file each), end to end",
		key: "commit", order: 30, tables: []string{"commits"},
		name:  func(Config) string { return CommitLatency },
		runs:  func(cfg Config) bool { return cfg.CommitOps > 0 },
		start: func(_ Config, lanes int) measurement { return &commitRun{lanes: make([]commitLane, lanes)} },
	})
}

type commitRun struct{ lanes []commitLane }

// commitLane is one lane's small appends.
type commitLane struct {
	rec, commit *results.Recorder
	wall        time.Duration
	first       error
	snapshots   int
	done        int // small appends attempted so far
}

// commitSeed is the generator seed of the commits table, apart from the
// events table's rows.
func commitSeed(cfg Config) uint64 { return cfg.Seed ^ 0xc0331 }

// round does this round's share of the small appends.
func (c *commitRun) round(ctx context.Context, cfg Config, i int, l *laneState, round int) {
	st := &c.lanes[i]
	if st.rec == nil {
		st.rec, st.commit = results.NewRecorder(), results.NewRecorder()
	}
	n := cfg.CommitOps / cfg.Rounds
	if round < cfg.CommitOps%cfg.Rounds {
		n++
	}
	for k := range n {
		from := int64(st.done+k) * int64(cfg.CommitRows)
		rdr, err := NewReader(nil, commitSeed(cfg), from, int64(cfg.CommitRows), cfg.CommitRows)
		if err != nil {
			st.fail(err)
			continue
		}
		res, err := Append(ctx, l.tables["commits"], rdr)
		rdr.Release()
		if res.Table != nil {
			l.tables["commits"] = res.Table
		}
		if err != nil {
			st.fail(err)
			continue
		}
		st.rec.Record(res.Total())
		st.commit.Record(res.Commit)
		st.wall += res.Total()
	}
	st.done += n
}

func (st *commitLane) fail(err error) {
	st.rec.Error()
	if st.first == nil {
		st.first = err
	}
}

// finish verifies, untimed, that the commits table holds exactly the rows
// of the successful small appends and one snapshot per append. A
// discrepancy is counted as a failed operation.
func (c *commitRun) finish(ctx context.Context, cfg Config, i int, l *laneState) {
	st := &c.lanes[i]
	if st.rec == nil {
		return
	}
	ok := st.rec.Count()
	st.snapshots = len(l.tables["commits"].Metadata().Snapshots())
	var err error
	switch {
	case int64(st.snapshots) != ok:
		err = fmt.Errorf("commits table has %d snapshots after %d successful appends", st.snapshots, ok)
	case ok == int64(st.done):
		var want Checksum
		want.AddRows(commitSeed(cfg), 0, int64(st.done)*int64(cfg.CommitRows))
		res, serr := Scan(ctx, l.tables["commits"], cfg.ScanConcurrency)
		if err = serr; err == nil {
			err = Verify(want, res.Sum)
		}
		if err != nil {
			err = fmt.Errorf("verify commits table: %w", err)
		}
	}
	if err != nil {
		st.fail(err)
	}
}

func (c *commitRun) record(cfg Config, i int, l *laneState, name string) results.Record {
	st := &c.lanes[i]
	if st.rec == nil {
		st.rec, st.commit = results.NewRecorder(), results.NewRecorder()
	}
	p := l.params(cfg)
	p["commit_rows"] = cfg.CommitRows
	p["commit_ops"] = cfg.CommitOps
	p["snapshots"] = st.snapshots
	var ms []measure
	if st.commit.Count() > 0 {
		ms = append(ms,
			measure{"catalog_commit_p50_us", us(st.commit.Percentile(50)), results.UnitMicros, results.Lower, nil},
			measure{"catalog_commit_p99_us", us(st.commit.Percentile(99)), results.UnitMicros, results.Lower, nil})
	}
	p["hist_of"] = "one small append end to end (Parquet PUT, manifests, metadata, catalog commit)"
	return l.line(cfg, name, st.rec, st.wall, p, st.first, ms)
}
