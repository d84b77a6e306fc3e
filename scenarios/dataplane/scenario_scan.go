package dataplane

import (
	"context"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// data.scan: each round scans the whole events table back to Arrow and
// compares every column's checksum with what was appended; a mismatch is
// a failed operation. Histogram: one sample per scan. It reads what the
// appends wrote, so they run whenever it does.
func init() {
	register(scenario{
		doc: "one full scan per round back to Arrow, every column's checksum verified",
		key: "scan", order: 20, needs: "append", tables: []string{"events"}, raw: "get",
		name:  func(Config) string { return ScanName },
		start: func(_ Config, lanes int) measurement { return &scanRun{lanes: make([]scanLane, lanes)} },
	})
}

type scanRun struct{ lanes []scanLane }

// scanLane is one lane's scans.
type scanLane struct {
	rec                *results.Recorder
	rows, b            int64
	files              int
	plan, verify, wall time.Duration
	first              error
	digest             string
	perRound           []float64 // rows/s of each verified scan
}

// round scans the events table and verifies it against what the lane
// appended successfully.
func (s *scanRun) round(ctx context.Context, cfg Config, i int, l *laneState, _ int) {
	st := &s.lanes[i]
	if st.rec == nil {
		st.rec = results.NewRecorder()
	}
	res, err := Scan(ctx, l.tables["events"], cfg.ScanConcurrency)
	if err == nil {
		err = Verify(l.want, res.Sum)
	}
	st.digest = res.Sum.Digest()
	if err != nil {
		st.rec.Error()
		if st.first == nil {
			st.first = err
		}
		return
	}
	st.rec.Record(res.Total)
	st.rows += res.Rows
	st.perRound = append(st.perRound, float64(res.Rows)/res.Total.Seconds())
	st.b += res.Bytes
	st.files = res.Files
	st.plan += res.Plan
	st.verify += res.Verify
	st.wall += res.Total
}

func (s *scanRun) finish(context.Context, Config, int, *laneState) {}

func (s *scanRun) record(cfg Config, i int, l *laneState, name string) results.Record {
	st := &s.lanes[i]
	if st.rec == nil {
		st.rec = results.NewRecorder()
	}
	p := l.params(cfg)
	var ms []measure
	if st.rec.Count() > 0 && st.wall > 0 {
		p["rows_total"] = st.rows
		ms = append(ms,
			measure{"plan_s", st.plan.Seconds(), results.UnitSeconds, "", nil},
			measure{"verify_s", st.verify.Seconds(), results.UnitSeconds, "", nil},
			measure{"rows_s", float64(st.rows) / st.wall.Seconds(), results.UnitRowsPerSec, results.Higher, st.perRound},
			measure{"mib_s", float64(st.b) / st.wall.Seconds() / (1 << 20), results.UnitMiBPerSec, results.Higher, nil},
			measure{"files", float64(st.files), results.UnitCount, "", nil},
			measure{"parquet_bytes", float64(st.b), results.UnitBytes, "", nil})
	}
	if st.digest != "" {
		p["checksum"] = st.digest
	}
	// The share of scans whose every column matched what was appended: 1
	// when all did.
	if n := st.rec.Count() + st.rec.Errors(); n > 0 {
		ms = append(ms, measure{"checksum_ok", float64(st.rec.Count()) / float64(n), results.UnitRatio, results.Higher, nil})
	}
	p["hist_of"] = "one full scan with checksum"
	return l.line(cfg, name, st.rec, st.wall, p, st.first, ms)
}
