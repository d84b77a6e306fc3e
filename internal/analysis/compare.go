package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Verdict is the outcome of comparing one cell on one metric.
type Verdict string

// Verdicts. Faster and slower are in the metric's good direction: a lower
// p50 and a higher ops/s are both faster.
const (
	Faster   Verdict = "faster"
	Slower   Verdict = "slower"
	NoChange Verdict = "no significant change"
	// Same is a positive claim: the change's interval lies inside
	// ±CompareOptions.Margin (the text output says "same within ±5 %").
	Same Verdict = "same"
	// NeedRuns: a side has too few independent runs for the test to ever
	// reach the significance level; Row.NeedRuns says how many it takes.
	NeedRuns   Verdict = "need runs"
	Unreliable Verdict = "unreliable" // the cell's control moved by more than ControlTolerance
)

// Default thresholds: a slowdown has to exceed these (and be significant)
// to count as a regression.
const (
	DeterministicThreshold = 0.10
	WallClockThreshold     = 0.25
	// ControlTolerance is how far a control may move between OLD and NEW
	// before the comparison of its competitor's cells is called unreliable.
	ControlTolerance = 0.50
)

// Correction names the multiple-comparison procedure Compare applies.
const Correction = "Benjamini-Hochberg"

// ErrNoCommonCells is returned when OLD and NEW share no cell.
var ErrNoCommonCells = errors.New("no common cells")

// CompareOptions shape a comparison. The zero value compares each cell's
// headline metric and every deterministic counter both sides carry, with
// the default thresholds, on one host.
type CompareOptions struct {
	// Metric to compare; zero means each cell's headline metric (the
	// line's own `metric` field, p50 for lines without one) and the
	// deterministic counters (allocations, bytes, system calls,
	// instructions, cycles per operation) that both sides carry.
	Metric Metric
	// Threshold is the slowdown (fraction, 0.25 = 25 %) a significant
	// change must exceed to be a regression; 0 means the metric's default.
	Threshold float64
	// Margin, when > 0, is the equivalence margin (fraction): a cell whose
	// delta interval lies inside ±Margin is Same.
	Margin float64
	// CrossHost matches cells of different hosts; every row then says so.
	CrossHost bool
	// Alpha is the false-discovery rate over the cells of the comparison
	// (and the level of the per-cell intervals); 0 means 0.05.
	Alpha float64
}

// Stat summarises one side of a cell: one value per independent run.
type Stat struct {
	Center float64 `json:"center"` // median over runs of the runs' values
	Lo     float64 `json:"lo"`     // 95 % interval of that median; ±Inf below 6 runs
	Hi     float64 `json:"hi"`
	N      int     `json:"n"`      // runs: the independent samples
	Rounds int     `json:"rounds"` // rounds over all runs (not independent)
	// RunSpread is the median over runs of each run's own (max−min)/median
	// over its rounds: how much a run moved inside one process. Absent
	// when no run had two rounds.
	RunSpread *float64 `json:"run_spread,omitempty"`
}

// Row is the comparison of one cell on one metric.
type Row struct {
	Cell   CellKey `json:"-"`
	Target string  `json:"target"`
	Scen   string  `json:"scenario"`
	Loop   string  `json:"loop"`
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`
	Old    Stat    `json:"old"`
	New    Stat    `json:"new"`
	// Normalised is true when each run's value is value/control_p50 (or
	// ops_sec×control_p50) of that run, so a machine that got slower
	// overall does not read as a regression. Old, New and Delta are then
	// of the normalised quantity; RawDelta is the change of the plain
	// metric.
	Normalised bool `json:"normalised"`
	// Delta is the Hodges–Lehmann estimate of the change: the median of
	// new/old − 1 over every pair of an OLD run and a NEW run.
	Delta float64 `json:"delta"`
	// DeltaLo and DeltaHi are the distribution-free (1−Alpha) interval of
	// that change (the Mann–Whitney inversion); absent when the runs are
	// too few for a finite one.
	DeltaLo  *float64 `json:"delta_lo,omitempty"`
	DeltaHi  *float64 `json:"delta_hi,omitempty"`
	RawDelta float64  `json:"raw_delta"`
	// P is the U-test p-value over the runs; Q is P adjusted for the
	// number of rows tested (Benjamini–Hochberg). Absent when no test ran.
	P            *float64 `json:"p,omitempty"`
	Q            *float64 `json:"q,omitempty"`
	ControlDelta *float64 `json:"control_delta,omitempty"`
	Verdict      Verdict  `json:"verdict"`
	// NeedRuns is, for a NeedRuns verdict, the runs per side the test
	// needs to be able to decide at Alpha.
	NeedRuns  int     `json:"need_runs,omitempty"`
	Margin    float64 `json:"margin,omitempty"`
	Threshold float64 `json:"threshold"`
	// MinChange is the smallest absolute change of the centres (in Unit) that
	// can be a regression; 0 for wall-clock metrics. Its JSON name, floor,
	// is kept for the readers of earlier output.
	MinChange  float64  `json:"floor,omitempty"`
	Regression bool     `json:"regression"`
	CrossHost  string   `json:"cross_host,omitempty"` // "old host vs new host" when hosts were crossed
	Notes      []string `json:"notes,omitempty"`

	higherBetter bool // the metric is a rate
}

// VerdictText is the verdict as printed: "same within ±5 %", "need 4
// runs", "REGRESSION (> 25 %)", or the verdict itself.
func (r Row) VerdictText() string {
	switch {
	case r.Regression:
		return fmt.Sprintf("REGRESSION (> %.0f %%)", 100*r.Threshold)
	case r.Verdict == Same:
		return fmt.Sprintf("same within ±%s %%", trimFloat(100*r.Margin))
	case r.Verdict == NeedRuns:
		return fmt.Sprintf("need %d runs", r.NeedRuns)
	}
	return string(r.Verdict)
}

// Comparison is the outcome of Compare.
type Comparison struct {
	Rows     []Row
	OnlyOld  []CellKey // cells OLD has and NEW does not
	OnlyNew  []CellKey
	OldCells int
	NewCells int
	OldRuns  int // distinct run ids on each side
	NewRuns  int
	// Alpha is the false-discovery rate the verdicts control, Tests the
	// number of rows in the family it is controlled over (the rows that
	// ran a test), Correction the procedure.
	Alpha      float64
	Tests      int
	Correction string
}

// Regressions returns how many rows regressed.
func (c Comparison) Regressions() int {
	n := 0
	for _, r := range c.Rows {
		if r.Regression {
			n++
		}
	}
	return n
}

// Count returns how many rows have verdict v.
func (c Comparison) Count(v Verdict) int {
	n := 0
	for _, r := range c.Rows {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

// MinRuns returns the fewest runs per side with which a two-sided
// Mann–Whitney U test can reach p ≤ alpha at all (4 at 0.05: the smallest
// p of 3 vs 3 runs is 0.10, of 4 vs 4 0.029).
func MinRuns(alpha float64) int {
	for n := 1; n < 1000; n++ {
		if minUTestP(n, n) <= alpha {
			return n
		}
	}
	return 1000
}

// minUTestP is the smallest two-sided p-value of a U test of n1 vs n2
// values without ties: both orderings where one side is wholly above the
// other, out of C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2/math.Exp(lc-l1-l2))
}

// cellSide is the lines of one cell on one side, grouped by run.
type cellSide struct {
	runs  []string // run ids in order of appearance
	lines map[string][]Line
}

func (s *cellSide) all() []Line {
	var out []Line
	for _, id := range s.runs {
		out = append(out, s.lines[id]...)
	}
	return out
}

func group(lines []Line, withHost bool) (map[CellKey]*cellSide, []CellKey, int) {
	m := map[CellKey]*cellSide{}
	var order []CellKey
	runs := map[string]bool{}
	for _, l := range lines {
		if !l.Measured() {
			continue
		}
		runs[l.RunID] = true
		c := CellOf(l, withHost)
		s, ok := m[c]
		if !ok {
			s = &cellSide{lines: map[string][]Line{}}
			m[c] = s
			order = append(order, c)
		}
		if _, ok := s.lines[l.RunID]; !ok {
			s.runs = append(s.runs, l.RunID)
		}
		s.lines[l.RunID] = append(s.lines[l.RunID], l)
	}
	return m, order, len(runs)
}

// Compare matches the measured lines of old and new by cell and tests each
// common cell. Each side is a set of independent runs: its lines are
// grouped by run_id, each run contributes one value per cell (the median
// over its rounds), and the U test runs over those values; the rounds of a
// run only give that run's own spread. The verdicts of all rows control
// the false-discovery rate at Alpha (Benjamini–Hochberg). Compare fails
// with ErrNoCommonCells (saying which side is empty, if one is) when
// nothing matches.
func Compare(old, new []Line, o CompareOptions) (Comparison, error) {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	om, oOrder, oRuns := group(old, !o.CrossHost)
	nm, nOrder, nRuns := group(new, !o.CrossHost)
	cmp := Comparison{OldCells: len(om), NewCells: len(nm), OldRuns: oRuns, NewRuns: nRuns, Alpha: o.Alpha, Correction: Correction}
	for _, c := range nOrder {
		os, ok := om[c]
		if !ok {
			cmp.OnlyNew = append(cmp.OnlyNew, c)
			continue
		}
		for _, m := range metricsOf(os, nm[c], o.Metric) {
			if row, ok := compareCell(c, os, nm[c], m, o); ok {
				cmp.Rows = append(cmp.Rows, row)
			}
		}
	}
	for _, c := range oOrder {
		if _, ok := nm[c]; !ok {
			cmp.OnlyOld = append(cmp.OnlyOld, c)
		}
	}
	if len(cmp.Rows) == 0 {
		switch {
		case len(om) == 0 && len(nm) == 0:
			return cmp, fmt.Errorf("%w: OLD and NEW both have no measured lines", ErrNoCommonCells)
		case len(om) == 0:
			return cmp, fmt.Errorf("%w: OLD has no measured lines (NEW has %d cells)", ErrNoCommonCells, len(nm))
		case len(nm) == 0:
			return cmp, fmt.Errorf("%w: NEW has no measured lines (OLD has %d cells)", ErrNoCommonCells, len(om))
		default:
			hint := ""
			if !o.CrossHost && hostsDisjoint(old, new) {
				hint = "; they were measured on different hosts (--cross-host compares them anyway)"
			}
			what := o.Metric.Name
			if what == "" {
				what = "its headline metric"
			}
			return cmp, fmt.Errorf("%w: OLD has %d cells, NEW has %d, none with %s on both sides%s",
				ErrNoCommonCells, len(om), len(nm), what, hint)
		}
	}
	cmp.Tests = decide(cmp.Rows, o)
	return cmp, nil
}

// metricsOf is the metrics a cell is compared on: m when given, else the
// headline and each counter every line of both sides carries.
func metricsOf(old, new *cellSide, m Metric) []Metric {
	if m.Name != "" {
		return []Metric{m}
	}
	first := new.lines[new.runs[0]][0]
	out := []Metric{HeadlineOf(first)}
	lines := append(old.all(), new.all()...)
	for _, c := range Counters {
		all := true
		for _, l := range lines {
			if _, ok := c.Value(l); !ok {
				all = false
				break
			}
		}
		if all {
			out = append(out, c)
		}
	}
	return out
}

func hostsDisjoint(a, b []Line) bool {
	ha := map[string]bool{}
	for _, l := range a {
		ha[l.HostKey()] = true
	}
	for _, l := range b {
		if ha[l.HostKey()] {
			return false
		}
	}
	return true
}

// isControl reports whether the line measures its own control: a control
// line (Record.Control) whose p50 is the control p50 it carries.
func isControl(l Line) bool {
	return l.Control && l.ControlP50US != nil && l.P50US != nil && *l.ControlP50US == *l.P50US
}

// runValues is one side of a cell on one metric: a value per run.
type runValues struct {
	vals    []float64 // per run, the median over its rounds
	raw     []float64 // the same without control normalisation
	ctl     []float64 // per run, its control p50
	rounds  int
	spreads []float64
}

// valuesOf reduces each run of s to one value of m; normalised divides
// latencies by (and multiplies rates with) the run's control p50.
func valuesOf(s *cellSide, m Metric, normalised bool) runValues {
	var rv runValues
	for _, id := range s.runs {
		var vs, raw []float64
		var ctl float64
		for _, l := range s.lines[id] {
			for _, v := range m.Samples(l) {
				raw = append(raw, v)
				if normalised {
					ctl = *l.ControlP50US
					if m.HigherBetter {
						v *= ctl
					} else {
						v /= ctl
					}
				}
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			continue
		}
		med := median(vs)
		rv.vals = append(rv.vals, med)
		rv.raw = append(rv.raw, median(raw))
		rv.ctl = append(rv.ctl, ctl)
		rv.rounds += len(vs)
		if len(vs) > 1 && med != 0 {
			lo, hi := minMax(vs)
			rv.spreads = append(rv.spreads, (hi-lo)/math.Abs(med))
		}
	}
	return rv
}

// hasControl reports whether every line of s carries a control p50.
func hasControl(s *cellSide) bool {
	for _, l := range s.all() {
		if l.ControlP50US == nil || *l.ControlP50US <= 0 {
			return false
		}
	}
	return true
}

// compareCell fills a row's statistics; decide gives the verdict once
// every row's p is known.
func compareCell(c CellKey, old, new *cellSide, m Metric, o CompareOptions) (Row, bool) {
	th := o.Threshold
	if th == 0 {
		th = WallClockThreshold
		if m.Deterministic {
			th = DeterministicThreshold
		}
	}
	first := new.lines[new.runs[0]][0]
	useCtl := !m.Deterministic && hasControl(old) && hasControl(new) && !isControl(first)
	vo, vn := valuesOf(old, m, useCtl), valuesOf(new, m, useCtl)
	if len(vo.vals) == 0 || len(vn.vals) == 0 {
		return Row{}, false
	}
	row := Row{Cell: c, Target: c.Target, Scen: c.Scenario, Loop: c.Loop, Metric: m.Name, Unit: m.Unit,
		Threshold: th, Margin: o.Margin, Normalised: useCtl, MinChange: m.MinChange, higherBetter: m.HigherBetter}
	if o.CrossHost {
		row.CrossHost = fmt.Sprintf("cross-host: %s vs %s", hostsOf(old.all()), hostsOf(new.all()))
	}
	if useCtl {
		row.Unit = "× control"
		d := median(vn.ctl)/median(vo.ctl) - 1
		row.ControlDelta = &d
	}
	thr := &benchmath.Thresholds{CompareAlpha: o.Alpha}
	bo, bn := benchmath.NewSample(vo.vals, thr), benchmath.NewSample(vn.vals, thr)
	sumO := benchmath.AssumeNothing.Summary(bo, 0.95)
	sumN := benchmath.AssumeNothing.Summary(bn, 0.95)
	row.Old = stat(sumO, vo)
	row.New = stat(sumN, vn)
	row.RawDelta = change(median(vo.raw), median(vn.raw))
	est, lo, hi, ok := shiftRatio(vo.vals, vn.vals, o.Alpha)
	if !finite(est, row.RawDelta) {
		return Row{}, false // a counter that grew from 0: no ratio to state
	}
	row.Delta = est - 1
	if ok {
		l, h := lo-1, hi-1
		row.DeltaLo, row.DeltaHi = &l, &h
	}
	if minUTestP(len(vo.vals), len(vn.vals)) > o.Alpha {
		row.Verdict = NeedRuns
		row.NeedRuns = MinRuns(o.Alpha)
		row.Notes = append(row.Notes, fmt.Sprintf("%d vs %d runs: the U test cannot reach p ≤ %g below %d runs a side", len(vo.vals), len(vn.vals), o.Alpha, row.NeedRuns))
	} else {
		p := benchmath.AssumeNothing.Compare(bo, bn).P
		row.P = &p
	}
	if e := errorsOf(old.all()) + errorsOf(new.all()); e > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("%d errors (OLD %d, NEW %d)", e, errorsOf(old.all()), errorsOf(new.all())))
	}
	return row, true
}

func stat(s benchmath.Summary, rv runValues) Stat {
	st := Stat{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: len(rv.vals), Rounds: rv.rounds}
	if len(rv.spreads) > 0 {
		sp := median(rv.spreads)
		st.RunSpread = &sp
	}
	return st
}

// decide adjusts the rows' p-values for their number (Benjamini–Hochberg)
// and gives each row its verdict. It returns the size of the family.
func decide(rows []Row, o CompareOptions) int {
	var tested []int
	for i, r := range rows {
		if r.P != nil {
			tested = append(tested, i)
		}
	}
	ps := make([]float64, len(tested))
	for k, i := range tested {
		ps[k] = *rows[i].P
	}
	for k, q := range benjaminiHochberg(ps) {
		q := q
		rows[tested[k]].Q = &q
	}
	for i := range rows {
		verdict(&rows[i], o)
	}
	return len(tested)
}

func verdict(r *Row, o CompareOptions) {
	finiteDelta := r.DeltaLo != nil && r.DeltaHi != nil
	worse := r.Delta > 0
	if r.higherBetter {
		worse = r.Delta < 0
	}
	// slowdown is the growth of time per operation, whichever way the
	// metric points, so one threshold means the same for p50 and ops/s.
	slowdown := r.Delta
	if r.higherBetter && r.Delta > -1 {
		slowdown = 1/(1+r.Delta) - 1
	}
	switch {
	case r.Verdict == NeedRuns:
	case o.Margin > 0 && finiteDelta && *r.DeltaLo >= -o.Margin && *r.DeltaHi <= o.Margin:
		r.Verdict = Same
	case *r.Q > o.Alpha:
		r.Verdict = NoChange
	case finiteDelta && *r.DeltaLo <= 0 && *r.DeltaHi >= 0:
		// Ties can make the rank test and the interval disagree; no
		// verdict without both.
		r.Verdict = NoChange
		r.Notes = append(r.Notes, fmt.Sprintf("q=%.3f, but the delta's interval includes 0", *r.Q))
	case worse:
		r.Verdict = Slower
		r.Regression = slowdown > r.Threshold
		if r.Regression && math.Abs(r.New.Center-r.Old.Center) < r.MinChange {
			r.Regression = false
			r.Notes = append(r.Notes, fmt.Sprintf("change below %g %s, the smallest change that counts for this counter", r.MinChange, r.Unit))
		}
	default:
		r.Verdict = Faster
	}
	if r.ControlDelta != nil && math.Abs(*r.ControlDelta) > ControlTolerance {
		r.Notes = append(r.Notes, fmt.Sprintf("control moved %+.0f %%", 100**r.ControlDelta))
		r.Verdict = Unreliable
		r.Regression = false
	}
}

// benjaminiHochberg returns the adjusted p-values (q) of ps, in their
// order: q_(i) = min over j ≥ i of p_(j)·m/j, capped at 1. A row is a
// discovery at rate α when its q ≤ α.
func benjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	q := make([]float64, m)
	run := 1.0
	for k := m - 1; k >= 0; k-- {
		i := idx[k]
		run = math.Min(run, ps[i]*float64(m)/float64(k+1))
		q[i] = run
	}
	return q
}

func errorsOf(lines []Line) int64 {
	var n int64
	for _, l := range lines {
		n += l.Errors
	}
	return n
}

func hostsOf(lines []Line) string {
	var hs []string
	for _, l := range lines {
		if !contains(hs, l.Host.Hostname) {
			hs = append(hs, l.Host.Hostname)
		}
	}
	return strings.Join(hs, "+")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// change is b/a − 1, and 0 when both are 0 (a counter that stayed at
// nothing did not change).
func change(a, b float64) float64 {
	if a == 0 && b == 0 {
		return 0
	}
	return b/a - 1
}

func minMax(v []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
