package scenarios

import (
	"context"
	"fmt"
	"io"

	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// LiveBuckets are the upper bounds, in seconds, of the latency histogram
// that --metrics-addr serves (Prometheus's default buckets, from 100 µs).
var LiveBuckets = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// LiveMetrics are a run's measured operations as Prometheus metrics while
// it runs (--metrics-addr), one series per target and scenario: the
// operations and errors of the measured phases (as the result lines count
// them: warm-ups are not counted) and a latency histogram of the
// successful ones. The measuring loops (Latency, Throughput, mixes) add
// each operation as it ends; other scenarios add theirs when their
// measurement ends; either way, once a scenario's measurement is done its
// counters hold exactly what its line counts. Served in the Prometheus
// text format (version 0.0.4) by ServeHTTP.
type LiveMetrics struct {
	mu     sync.Mutex
	series map[[2]string]*liveSeries
}

// NewLiveMetrics returns empty metrics.
func NewLiveMetrics() *LiveMetrics { return &LiveMetrics{series: map[[2]string]*liveSeries{}} }

type liveSeries struct {
	target, scenario string
	ops, errs        atomic.Int64
	buckets          []atomic.Int64 // per bucket (not cumulative); the last is +Inf
	sumNanos         atomic.Int64
}

func (m *LiveMetrics) get(target, scenario string) *liveSeries {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{target, scenario}
	s := m.series[k]
	if s == nil {
		s = &liveSeries{target: target, scenario: scenario, buckets: make([]atomic.Int64, len(LiveBuckets)+1)}
		m.series[k] = s
	}
	return s
}

func (s *liveSeries) observe(d time.Duration, n int64) {
	i := sort.SearchFloat64s(LiveBuckets[:], d.Seconds())
	s.buckets[i].Add(n)
	s.sumNanos.Add(int64(d) * n)
}

// liveRun is one measurement of a series: what its loop added as it ran,
// so that settle adds only the rest.
type liveRun struct {
	s          *liveSeries
	ops, errs  atomic.Int64
	histLoaded atomic.Bool
}

type liveKey struct{}

// begin starts one measurement of target × scenario and returns ctx
// carrying it for the measuring loops.
func (m *LiveMetrics) begin(ctx context.Context, target, scenario string) (context.Context, *liveRun) {
	lr := &liveRun{s: m.get(target, scenario)}
	return context.WithValue(ctx, liveKey{}, lr), lr
}

func liveFrom(ctx context.Context) *liveRun {
	lr, _ := ctx.Value(liveKey{}).(*liveRun)
	return lr
}

// settle makes the series hold what rec (the measurement's result) holds:
// it adds the operations and errors the loop did not add as they ended,
// and, when the loop added none, rec's latencies.
func (lr *liveRun) settle(rec *results.Recorder) {
	if lr == nil || rec == nil {
		return
	}
	if d := rec.Count() - lr.ops.Load(); d > 0 {
		lr.s.ops.Add(d)
	}
	if d := rec.Errors() - lr.errs.Load(); d > 0 {
		lr.s.errs.Add(d)
	}
	if !lr.histLoaded.Load() {
		rec.EachValue(func(upTo time.Duration, n int64) { lr.s.observe(upTo, n) })
	}
}

// ServeHTTP writes the metrics in the Prometheus text format.
func (m *LiveMetrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.WriteText(w)
}

// WriteText writes the metrics in the Prometheus text format.
func (m *LiveMetrics) WriteText(w io.Writer) {
	m.mu.Lock()
	ss := make([]*liveSeries, 0, len(m.series))
	for _, s := range m.series {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	sort.Slice(ss, func(i, j int) bool {
		return ss[i].target < ss[j].target || ss[i].target == ss[j].target && ss[i].scenario < ss[j].scenario
	})
	var b strings.Builder
	b.WriteString("# HELP katbench_operations_total Measured operations that succeeded (warm-ups excluded).\n# TYPE katbench_operations_total counter\n")
	for _, s := range ss {
		fmt.Fprintf(&b, "katbench_operations_total{%s} %d\n", s.labels(), s.ops.Load())
	}
	b.WriteString("# HELP katbench_errors_total Measured operations that failed.\n# TYPE katbench_errors_total counter\n")
	for _, s := range ss {
		fmt.Fprintf(&b, "katbench_errors_total{%s} %d\n", s.labels(), s.errs.Load())
	}
	b.WriteString("# HELP katbench_operation_duration_seconds Latency of the measured operations that succeeded.\n# TYPE katbench_operation_duration_seconds histogram\n")
	for _, s := range ss {
		var cum int64
		for i := range s.buckets {
			cum += s.buckets[i].Load()
			le := "+Inf"
			if i < len(LiveBuckets) {
				le = strconv.FormatFloat(LiveBuckets[i], 'g', -1, 64)
			}
			fmt.Fprintf(&b, "katbench_operation_duration_seconds_bucket{%s,le=%q} %d\n", s.labels(), le, cum)
		}
		fmt.Fprintf(&b, "katbench_operation_duration_seconds_sum{%s} %s\n", s.labels(), strconv.FormatFloat(float64(s.sumNanos.Load())/1e9, 'g', -1, 64))
		fmt.Fprintf(&b, "katbench_operation_duration_seconds_count{%s} %d\n", s.labels(), cum)
	}
	io.WriteString(w, b.String())
}

func (s *liveSeries) labels() string {
	return "target=" + promQuote(s.target) + ",scenario=" + promQuote(s.scenario)
}

// promQuote quotes a label value: backslash, double quote and newline
// escaped.
func promQuote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v) + `"`
}

// liveBatch is one measuring goroutine's operations not yet added to its
// liveRun: adding each one to shared counters would make the goroutines
// of a fast in-process catalog contend for them, so a batch adds them
// every liveBatchOps operations or liveBatchTime of operations, and at
// flush.
type liveBatch struct {
	lr        *liveRun
	ops, errs int64
	sumNanos  int64
	busy      time.Duration // the batch's operations' time: a closed loop's wall time
	buckets   [len(LiveBuckets) + 1]int64
}

const (
	liveBatchOps  = 256
	liveBatchTime = 100 * time.Millisecond
)

func (lr *liveRun) batch() *liveBatch {
	if lr == nil {
		return nil
	}
	return &liveBatch{lr: lr}
}

// op adds one measured operation (not safe for concurrent use: one batch
// per goroutine).
func (b *liveBatch) op(d time.Duration, err error) {
	if b == nil {
		return
	}
	b.busy += d
	if err != nil {
		b.errs++
	} else {
		b.ops++
		b.sumNanos += int64(d)
		b.buckets[sort.SearchFloat64s(LiveBuckets[:], d.Seconds())]++
	}
	if b.ops+b.errs >= liveBatchOps || b.busy >= liveBatchTime {
		b.flush()
	}
}

// flush adds the batch to its run and series.
func (b *liveBatch) flush() {
	if b == nil || b.ops+b.errs == 0 {
		return
	}
	lr, s := b.lr, b.lr.s
	if b.errs > 0 {
		lr.errs.Add(b.errs)
		s.errs.Add(b.errs)
	}
	if b.ops > 0 {
		lr.ops.Add(b.ops)
		s.ops.Add(b.ops)
		lr.histLoaded.Store(true)
		for i, n := range b.buckets {
			if n > 0 {
				s.buckets[i].Add(n)
			}
		}
		s.sumNanos.Add(b.sumNanos)
	}
	*b = liveBatch{lr: lr}
}
