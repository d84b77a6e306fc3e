package analysis

import (
	"fmt"
	"github.com/nordisk/katbench/internal/results"
	"math"
	"sort"
	"strings"
)

// History depth: lines of a `--snapshots` run carry their level as the
// measure history_snapshots (and params.snapshots, which defines their
// cell). A depth series is one target's scenario (in one snapshots mode)
// across the levels; its cost growth is the slope of log(headline) against
// log(snapshots), fitted over the levels of one snapshot or more, and
// given as the factor per 10× of history (10^slope).

// depthKey names one depth series.
type depthKey struct {
	run, target, scenario, mode string
}

// depthPoint is one level of a series.
type depthPoint struct {
	snapshots float64
	line      Line
}

// depthSeries groups the measured lines that carry a history level, in
// the order their series first appear, each series' points by level.
func depthSeries(lines []Line) ([]depthKey, map[depthKey][]depthPoint) {
	var order []depthKey
	by := map[depthKey][]depthPoint{}
	for _, l := range lines {
		m, ok := l.Measure("history_snapshots")
		if !ok || !l.Measured() {
			continue
		}
		if _, ok := depthValue(l); !ok {
			continue
		}
		k := depthKey{run: l.RunID, target: l.Target, scenario: l.Scenario}
		if v, ok := l.Params["snapshots_mode"]; ok {
			k.mode = fmt.Sprint(v)
		}
		if _, seen := by[k]; !seen {
			order = append(order, k)
		}
		by[k] = append(by[k], depthPoint{snapshots: m.Value, line: l})
	}
	for _, k := range order {
		pts := by[k]
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].snapshots < pts[j].snapshots })
	}
	return order, by
}

// depthValue is the line's headline: ops/s for a throughput line, p50 µs
// otherwise.
func depthValue(l Line) (float64, bool) {
	if l.Metric == results.OpsSec {
		if l.OpsSec == nil || *l.OpsSec <= 0 {
			return 0, false
		}
		return *l.OpsSec, true
	}
	if l.P50US == nil || *l.P50US <= 0 {
		return 0, false
	}
	return *l.P50US, true
}

// depthSlope fits log10(value) = a + slope·log10(snapshots) over the
// points of one snapshot or more; false with fewer than two such levels.
func depthSlope(pts []depthPoint) (float64, bool) {
	var xs, ys []float64
	for _, p := range pts {
		v, ok := depthValue(p.line)
		if p.snapshots < 1 || !ok {
			continue
		}
		xs, ys = append(xs, p.snapshots), append(ys, v)
	}
	g, ok := FitGrowth(xs, ys)
	return g.Exponent, ok
}

// historyTable is the history-depth table of one run (the block layout
// `history`): a row per target, scenario and snapshots mode, the headline
// at every level, the deepest level's multiple of level 0, the factor per
// 10× of history, and how the history was built, in how long, and how
// large its metadata was at the deepest level.
func historyTable(run []Line) (string, error) {
	if len(run) == 0 {
		return "", fmt.Errorf("%w: no line of the run is among the block's targets= and scenarios=", ErrNoLines)
	}
	order, by := depthSeries(run)
	if len(order) == 0 {
		return "", fmt.Errorf("%w: no line of run %s carries a history level (--snapshots)", ErrNoLines, run[0].RunID)
	}
	var levels []float64
	seen := map[float64]bool{}
	for _, k := range order {
		for _, p := range by[k] {
			if !seen[p.snapshots] {
				seen[p.snapshots] = true
				levels = append(levels, p.snapshots)
			}
		}
	}
	sort.Float64s(levels)
	var b strings.Builder
	b.WriteString("| target | scenario | mode |")
	for _, lv := range levels {
		fmt.Fprintf(&b, " %s snapshots |", Thousands(int64(lv)))
	}
	b.WriteString(" deepest ÷ 0 | × per 10× (fit) | metadata at deepest | built | build at deepest |\n|---|---|---|")
	b.WriteString(strings.Repeat("---:|", len(levels)+3) + "---|---:|\n")
	for _, k := range order {
		pts := by[k]
		at := map[float64]depthPoint{}
		for _, p := range pts {
			at[p.snapshots] = p
		}
		unit := "µs p50"
		if pts[0].line.Metric == results.OpsSec {
			unit = "ops/s"
		}
		mode := k.mode
		if mode == "" {
			mode = "—"
		}
		fmt.Fprintf(&b, "| %s | `%s` (%s) | %s |", k.target, k.scenario, unit, mode)
		for _, lv := range levels {
			p, ok := at[lv]
			if !ok {
				b.WriteString(" — |")
				continue
			}
			v, _ := depthValue(p.line)
			fmt.Fprintf(&b, " %s |", FormatNum(v))
		}
		first, last := pts[0], pts[len(pts)-1]
		ratio := "—"
		if first.snapshots == 0 && last.snapshots > 0 {
			v0, _ := depthValue(first.line)
			v1, _ := depthValue(last.line)
			ratio = FormatNum(v1/v0) + "×"
		}
		fit := "—"
		if s, ok := depthSlope(pts); ok {
			fit = fmt.Sprintf("%s× (slope %.2f)", FormatNum(math.Pow(10, s)), s)
		}
		meta := "—"
		if m, ok := last.line.Measure("metadata_bytes"); ok {
			meta = FormatNum(m.Value/1024) + " KiB"
		}
		built := fmt.Sprint(last.line.Params["history_built"])
		if note := paramText(last.line.Params["history_note"]); note != "—" && note != "" {
			// The level is not the history asked for (a catalog that
			// keeps fewer snapshots): the row must not read as one.
			built += " — " + note
		}
		build := "—"
		if m, ok := last.line.Measure("history_build_s"); ok {
			build = FormatNum(m.Value) + " s"
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s | %s |\n", ratio, fit, meta, built, build)
	}
	return b.String(), nil
}

// narrow keeps the lines of run whose target is in the block's targets=
// and whose scenario matches its scenarios=GLOB,… (each when given).
func narrow(b Block, run []Line) []Line {
	targets, globs := b.Attrs["targets"], b.Attrs["scenarios"]
	if targets == "" && globs == "" {
		return run
	}
	var kept []Line
	for _, l := range run {
		if (targets == "" || contains(strings.Split(targets, ","), l.Target)) &&
			(globs == "" || matchAny(strings.Split(globs, ","), l.Scenario)) {
			kept = append(kept, l)
		}
	}
	return kept
}

func init() {
	RegisterLayout(Layout{Name: "history", Doc: "the history-depth table of a --snapshots run", Attrs: []string{"targets", "scenarios"},
		Render: func(b Block, run []Line, _ RunInfo, _ Sources) (string, error) { return historyTable(narrow(b, run)) }})
}
