package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Verdict is the outcome of comparing one cell.
type Verdict string

// Verdicts. Faster and slower are in the metric's good direction: a lower
// p50 and a higher ops/s are both faster.
const (
	Faster     Verdict = "faster"
	Slower     Verdict = "slower"
	NoChange   Verdict = "no significant change"
	NoTest     Verdict = "no test"    // too few samples on a side to test at all
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

// ErrNoCommonCells is returned when OLD and NEW share no cell.
var ErrNoCommonCells = errors.New("no common cells")

// CompareOptions shape a comparison. The zero value compares p50 with the
// default thresholds on one host.
type CompareOptions struct {
	// Metric to compare; zero means each cell's headline metric (the
	// line's own `metric` field, p50 for lines without one).
	Metric Metric
	// Threshold is the slowdown (fraction, 0.25 = 25 %) a significant
	// change must exceed to be a regression; 0 means the metric's default.
	Threshold float64
	// CrossHost matches cells of different hosts; every row then says so.
	CrossHost bool
	Alpha     float64 // significance level of the U-test; 0 means 0.05
	// Confidence of the per-side intervals; 0 means 0.95.
	Confidence float64
}

// Stat summarises one side of a cell.
type Stat struct {
	Center float64 `json:"center"` // median of the samples
	Lo     float64 `json:"lo"`     // confidence interval of the median; ±Inf when n is too small
	Hi     float64 `json:"hi"`
	N      int     `json:"n"`
	Runs   int     `json:"runs"` // lines pooled into this side
}

// Row is the comparison of one cell.
type Row struct {
	Cell   Cell   `json:"-"`
	Target string `json:"target"`
	Scen   string `json:"scenario"`
	Loop   string `json:"loop"`
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	Old    Stat   `json:"old"`
	New    Stat   `json:"new"`
	// Normalised is true when the test ran on value/control_p50 (or
	// ops_sec×control_p50), so a machine that got slower overall does not
	// read as a regression. Old, New and Delta are then of the normalised
	// quantity; RawDelta is the change of the plain metric.
	Normalised bool    `json:"normalised"`
	Delta      float64 `json:"delta"` // new/old − 1 of the centres
	// DeltaLo and DeltaHi bound the delta from the two intervals; absent
	// when either interval is unbounded.
	DeltaLo      *float64 `json:"delta_lo,omitempty"`
	DeltaHi      *float64 `json:"delta_hi,omitempty"`
	RawDelta     float64  `json:"raw_delta"`
	P            *float64 `json:"p,omitempty"` // U-test p-value; absent when no test ran
	ControlDelta *float64 `json:"control_delta,omitempty"`
	Verdict      Verdict  `json:"verdict"`
	Threshold    float64  `json:"threshold"`
	Regression   bool     `json:"regression"`
	CrossHost    string   `json:"cross_host,omitempty"` // "old host vs new host" when hosts were crossed
	Notes        []string `json:"notes,omitempty"`
}

// Comparison is the outcome of Compare.
type Comparison struct {
	Rows     []Row
	OnlyOld  []Cell // cells OLD has and NEW does not
	OnlyNew  []Cell
	OldCells int
	NewCells int
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

// side is the lines of one cell on one side.
type side struct {
	lines []Line
}

func group(lines []Line, withHost bool) (map[Cell]*side, []Cell) {
	m := map[Cell]*side{}
	var order []Cell
	for _, l := range lines {
		if !l.Measured() {
			continue
		}
		c := CellOf(l, withHost)
		s, ok := m[c]
		if !ok {
			s = &side{}
			m[c] = s
			order = append(order, c)
		}
		s.lines = append(s.lines, l)
	}
	return m, order
}

// Compare matches the measured lines of old and new by cell and tests each
// common cell. It fails with ErrNoCommonCells (saying which side is empty,
// if one is) when nothing matches.
func Compare(old, new []Line, o CompareOptions) (Comparison, error) {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	om, oOrder := group(old, !o.CrossHost)
	nm, nOrder := group(new, !o.CrossHost)
	cmp := Comparison{OldCells: len(om), NewCells: len(nm)}
	for _, c := range nOrder {
		os, ok := om[c]
		if !ok {
			cmp.OnlyNew = append(cmp.OnlyNew, c)
			continue
		}
		row, ok := compareCell(c, os.lines, nm[c].lines, o)
		if ok {
			cmp.Rows = append(cmp.Rows, row)
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
	return cmp, nil
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

// isControl reports whether the line measures its own control (its p50
// is the control p50 it carries).
func isControl(l Line) bool {
	return strings.HasPrefix(l.Scenario, "control") && l.ControlP50US != nil && l.P50US != nil && *l.ControlP50US == *l.P50US
}

func compareCell(c Cell, old, new []Line, o CompareOptions) (Row, bool) {
	m := o.Metric
	if m.Name == "" {
		m = HeadlineOf(new[0])
	}
	th := o.Threshold
	if th == 0 {
		th = WallClockThreshold
		if m.Deterministic {
			th = DeterministicThreshold
		}
	}
	rawOld, rawNew := samples(old, m, false), samples(new, m, false)
	if len(rawOld) == 0 || len(rawNew) == 0 {
		return Row{}, false
	}
	row := Row{Cell: c, Target: c.Target, Scen: c.Scenario, Loop: c.Loop, Metric: m.Name, Unit: m.Unit, Threshold: th}
	if o.CrossHost {
		row.CrossHost = fmt.Sprintf("cross-host: %s vs %s", hostsOf(old), hostsOf(new))
	}
	ctlOld, okOld := controlOf(old)
	ctlNew, okNew := controlOf(new)
	useCtl := okOld && okNew && !isControl(old[0])
	so, sn := rawOld, rawNew
	if useCtl {
		row.Normalised = true
		so, sn = samples(old, m, true), samples(new, m, true)
		row.Unit = "× control"
		d := ctlNew/ctlOld - 1
		row.ControlDelta = &d
	}
	thr := &benchmath.Thresholds{CompareAlpha: o.Alpha}
	bo, bn := benchmath.NewSample(so, thr), benchmath.NewSample(sn, thr)
	sumO := benchmath.AssumeNothing.Summary(bo, o.Confidence)
	sumN := benchmath.AssumeNothing.Summary(bn, o.Confidence)
	row.Old = Stat{Center: sumO.Center, Lo: sumO.Lo, Hi: sumO.Hi, N: len(so), Runs: len(old)}
	row.New = Stat{Center: sumN.Center, Lo: sumN.Lo, Hi: sumN.Hi, N: len(sn), Runs: len(new)}
	row.Delta = sumN.Center/sumO.Center - 1
	row.RawDelta = median(rawNew)/median(rawOld) - 1
	if finite(sumO.Lo, sumO.Hi, sumN.Lo, sumN.Hi) && sumO.Lo > 0 && sumO.Hi > 0 {
		lo, hi := sumN.Lo/sumO.Hi-1, sumN.Hi/sumO.Lo-1
		row.DeltaLo, row.DeltaHi = &lo, &hi
	}
	worse := row.Delta > 0
	if m.HigherBetter {
		worse = row.Delta < 0
	}
	// slowdown is the growth of time per operation, whichever way the
	// metric points, so one threshold means the same for p50 and ops/s.
	slowdown := row.Delta
	if m.HigherBetter && sumN.Center > 0 {
		slowdown = sumO.Center/sumN.Center - 1
	}
	switch {
	case len(so) < 2 || len(sn) < 2:
		row.Verdict = NoTest
		row.Notes = append(row.Notes, fmt.Sprintf("n=%d vs n=%d, no test", len(so), len(sn)))
	default:
		cp := benchmath.AssumeNothing.Compare(bo, bn)
		p := cp.P
		row.P = &p
		for _, w := range cp.Warnings {
			row.Notes = append(row.Notes, w.Error())
		}
		straddles := row.DeltaLo != nil && *row.DeltaLo <= 0 && *row.DeltaHi >= 0
		switch {
		case p >= o.Alpha:
			row.Verdict = NoChange
		case straddles:
			// The rank test and the medians' intervals disagree: the
			// samples are shifted, but the change of the median is not
			// pinned down to one direction. Rounds of one run share a
			// process and a moment, so a shift between two runs of one
			// build passes the rank test often (see docs/methodology.md, "A real
			// compare pair"); no verdict without both.
			row.Verdict = NoChange
			row.Notes = append(row.Notes, fmt.Sprintf("p=%.3f, but the delta's interval includes 0", p))
		case worse:
			row.Verdict = Slower
			row.Regression = slowdown > th
		default:
			row.Verdict = Faster
		}
	}
	if row.ControlDelta != nil && math.Abs(*row.ControlDelta) > ControlTolerance {
		row.Notes = append(row.Notes, fmt.Sprintf("control moved %+.0f %%", 100**row.ControlDelta))
		row.Verdict = Unreliable
		row.Regression = false
	}
	if e := errorsOf(old) + errorsOf(new); e > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("%d errors (OLD %d, NEW %d)", e, errorsOf(old), errorsOf(new)))
	}
	return row, true
}

// samples pools the per-line samples of a side; normalised divides
// latencies by (and multiplies rates with) the line's control p50.
func samples(lines []Line, m Metric, normalised bool) []float64 {
	var out []float64
	for _, l := range lines {
		for _, v := range m.Samples(l) {
			if normalised {
				c := *l.ControlP50US
				if m.HigherBetter {
					v *= c
				} else {
					v /= c
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// controlOf returns the median control p50 of a side, and whether every
// line has one.
func controlOf(lines []Line) (float64, bool) {
	var cs []float64
	for _, l := range lines {
		if l.ControlP50US == nil || *l.ControlP50US <= 0 {
			return 0, false
		}
		cs = append(cs, *l.ControlP50US)
	}
	return median(cs), len(cs) > 0
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

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}
