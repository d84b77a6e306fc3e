package dataplane

import (
	"context"
	"strings"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
)

// data.append.<rows>: each round appends Config.Rows generated rows to the
// lane's events table in one transaction, under Config.MemoryLimit. The
// line's histogram is the commit phase (new metadata and the catalog
// commit), one sample per append; measures carry rows/s and Parquet MiB/s
// over the whole append and the files and bytes written, params the
// write/commit/generation split and the process's peak RSS so far.
func init() {
	register(scenario{
		doc: "one append of --rows rows per round: rows/s and Parquet MiB/s; histogram = the commit phase", stem: "data.append", dims: []bench.Dimension{bench.DimRows},
		key: "append", order: 10, tables: []string{"events"}, raw: "put",
		owns: func(name string) bool { return strings.HasPrefix(name, AppendPrefix) },
		name: func(cfg Config) string { return AppendName(cfg.Rows) },
		start: func(_ Config, lanes int) measurement {
			return &appendRun{lanes: make([]appendLane, lanes), wantRound: -1}
		},
	})
}

// appendRun is the append's state over one run.
type appendRun struct {
	lanes []appendLane
	// want is what round wantRound appends, identical for every lane:
	// computed once a round, untimed.
	want      Checksum
	wantRound int
}

// appendLane is one lane's appends.
type appendLane struct {
	rec, commit      *results.Recorder // per-append total; commit phase
	rows, files, b   int64
	overruns         int64 // batches built beyond the reader's live bound
	write, gen, wall time.Duration
	first            error
	perRound         []float64 // rows/s of each successful append
	peakRSS          int64     // the process's peak RSS after the lane's last append
}

func (a *appendRun) round(ctx context.Context, cfg Config, i int, l *laneState, round int) {
	from := int64(round) * cfg.Rows
	if round != a.wantRound {
		a.wantRound, a.want = round, Checksum{}
		a.want.AddRows(cfg.Seed, from, cfg.Rows)
	}
	st := &a.lanes[i]
	if st.rec == nil {
		st.rec, st.commit = results.NewRecorder(), results.NewRecorder()
	}
	withMemoryLimit(cfg.MemoryLimit, func() { st.appendRound(ctx, cfg, l, from, a.want) })
	st.peakRSS = peakRSS()
}

// appendRound appends rows [from, from+cfg.Rows) to the events table.
func (st *appendLane) appendRound(ctx context.Context, cfg Config, l *laneState, from int64, want Checksum) {
	rdr, err := NewReader(nil, cfg.Seed, from, cfg.Rows, cfg.BatchRows)
	if err == nil {
		defer rdr.Release()
		rdr.LimitLive(LiveBatches)
		var res AppendResult
		res, err = Append(ctx, l.tables["events"], rdr)
		if res.Table != nil {
			l.tables["events"] = res.Table
		}
		if err == nil {
			l.want.Merge(want)
			st.rec.Record(res.Total())
			st.commit.Record(res.Commit)
			st.rows += res.Rows
			st.perRound = append(st.perRound, float64(res.Rows)/res.Total().Seconds())
			st.files += res.Files
			st.b += res.Bytes
			st.write += res.Write
			st.gen += res.Gen
			st.overruns += res.Overruns
			st.wall += res.Total()
			return
		}
	}
	st.rec.Error()
	st.commit.Error()
	if st.first == nil {
		st.first = err
	}
}

func (a *appendRun) finish(_ context.Context, cfg Config, i int, _ *laneState) {
	if st := &a.lanes[i]; st.rec != nil && st.rec.Count() > 0 {
		cfg.Baseline.add(st.b, st.files)
	}
}

func (a *appendRun) record(cfg Config, i int, l *laneState, name string) results.Record {
	st := &a.lanes[i]
	if st.rec == nil {
		st.rec, st.commit = results.NewRecorder(), results.NewRecorder()
	}
	p := l.params(cfg)
	p["appends"] = st.rec.Count()
	var ms []measure
	if st.rec.Count() > 0 && st.wall > 0 {
		p["rows_total"] = st.rows
		ms = append(ms,
			measure{"write_s", st.write.Seconds(), results.UnitSeconds, "", nil},
			measure{"gen_s", st.gen.Seconds(), results.UnitSeconds, "", nil},
			measure{"commit_s", (st.wall - st.write).Seconds(), results.UnitSeconds, "", nil},
			measure{"append_p50_us", us(st.rec.Percentile(50)), results.UnitMicros, results.Lower, nil},
			measure{"append_max_us", us(st.rec.Percentile(100)), results.UnitMicros, results.Lower, nil},
			measure{"rows_s", float64(st.rows) / st.wall.Seconds(), results.UnitRowsPerSec, results.Higher, st.perRound},
			measure{"mib_s", float64(st.b) / st.wall.Seconds() / (1 << 20), results.UnitMiBPerSec, results.Higher, nil},
			measure{"files", float64(st.files), results.UnitCount, "", nil},
			measure{"parquet_bytes", float64(st.b), results.UnitBytes, "", nil})
		if st.files > 0 {
			ms = append(ms, measure{"avg_file_bytes", float64(st.b / st.files), results.UnitBytes, "", nil})
		}
	}
	if st.overruns > 0 {
		// The batch bound did not hold (see Reader.LimitLive): peak memory
		// on this line is not what the bound promises.
		p["live_batch_overruns"] = st.overruns
	}
	if cfg.MemoryLimit > 0 {
		p["go_memory_limit_mib"] = float64(cfg.MemoryLimit) / (1 << 20)
	}
	if st.peakRSS > 0 {
		// getrusage's ru_maxrss: every lane and target before this one, and
		// an in-process S3 store's objects, are in it too.
		ms = append(ms, measure{"peak_rss_mib", float64(st.peakRSS) / (1 << 20), results.UnitMiB, results.Lower, nil})
	}
	p["hist_of"] = "commit phase (metadata file + catalog commit) per append"
	return l.line(cfg, name, st.commit, st.wall, p, st.first, ms)
}
