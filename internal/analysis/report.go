package analysis

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
)

// ReportOptions shape a report.
type ReportOptions struct {
	Title   string
	Sources []string  // the files the lines came from, shown in the header
	Now     time.Time // generation time shown in the header; zero: time.Now
}

// WriteReport renders lines as one self-contained HTML page: per scenario
// the HDR percentile spectrum of every (run, target) overlaid, throughput
// against threads, A/B ratios with their spread, and each run's host,
// commit and command. The page references nothing outside itself (inline
// SVG and CSS, no script), so it opens offline.
func WriteReport(w io.Writer, lines []Line, o ReportOptions) error {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Title == "" {
		o.Title = "katbench report"
	}
	v, err := buildReport(lines, o)
	if err != nil {
		return err
	}
	if err := reportTmpl.Execute(w, v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

type reportView struct {
	Title     string
	Generated string
	Sources   []string
	Runs      []runView
	Scenarios []scenarioView
	Families  []familyView
	Capacity  []familyView
	Sizing    []familyView // growth sweeps: costs against tables
	History   []familyView // history-depth charts (history_chart.go)
	Verify    []familyView // verify contention curves (verify_chart.go)
	Ratios    []ratioRunView
	// Summary is one headline per (run, non-base target).
	Summary []summaryView
}

type runView struct {
	ID, TS, Host, Commit, Command string
	Targets                       string
	Lines                         int
}

type scenarioView struct {
	Name    string
	Anchor  string
	Chart   template.HTML
	Rows    []seriesRow
	Skipped []string
}

type seriesRow struct {
	Label, Loop                                    string
	Ops, Errors                                    int64
	P50, P99, P999, Max, OpsSec, Control, Achieved string
}

type familyView struct {
	Name, Anchor string
	Chart        template.HTML
}

type ratioRunView struct {
	RunID, Base string
	Rows        []ratioRow
	Chart       template.HTML // every row's speed ratio with its spread
}

type ratioRow struct {
	Scenario, Target string
	P50, OpsSec      string
	Tie              bool
	// Speed is B's speed as a multiple of A's in the headline metric
	// (A's p50 / B's p50 for latencies, B's ops/s / A's for throughput):
	// above 1 B is better, whatever the metric.
	Speed         string
	speed, lo, hi float64
	ok            bool
}

type summaryView struct {
	RunID, Base, Target        string
	Cells, Better, Worse, Ties int
	GeoMean, Best, Worst       string
}

func buildReport(lines []Line, o ReportOptions) (reportView, error) {
	lines = redactLines(lines)
	v := reportView{Title: o.Title, Generated: o.Now.UTC().Format(time.RFC3339), Sources: o.Sources}
	runs := Runs(lines)
	multiRun := len(runs) > 1
	for _, r := range runs {
		cmd := r.First.Command
		if cmd == "" {
			cmd = "not recorded in these lines"
		}
		v.Runs = append(v.Runs, runView{
			ID: r.ID, TS: r.First.TS.UTC().Format("2006-01-02 15:04:05 MST"), Host: r.First.HostLabel(),
			Commit: commitLabel(r.First), Command: cmd, Targets: strings.Join(r.Targets, ", "), Lines: r.Lines,
		})
	}
	variant := variants(lines)
	label := func(l Line) string {
		s := l.Target
		if multiRun {
			s += " · " + short(l.RunID)
		}
		if v := variant(l); v != "" {
			s += " · " + v
		}
		return s
	}

	var order []string
	byScen := map[string][]Line{}
	for _, l := range lines {
		if _, ok := byScen[l.Scenario]; !ok {
			order = append(order, l.Scenario)
		}
		byScen[l.Scenario] = append(byScen[l.Scenario], l)
	}
	for i, s := range order {
		sv := scenarioView{Name: s, Anchor: fmt.Sprintf("s%d", i)}
		c := chart{Title: s + ": latency by percentile", XLabel: "percentile (log nines)", YLabel: "µs (log)", LogY: true}
		maxNines := 0.0
		for _, l := range byScen[s] {
			if l.Skipped != "" {
				sv.Skipped = append(sv.Skipped, fmt.Sprintf("%s: %s", label(l), oneLine(l.Skipped)))
				continue
			}
			row := seriesRow{Label: label(l), Loop: l.Loop, Ops: l.Ops, Errors: l.Errors,
				P50: opt(l.P50US), P99: opt(l.P99US), P999: opt(l.P999US), Max: opt(l.MaxUS), OpsSec: opt(l.OpsSec), Control: opt(l.ControlP50US)}
			if l.Rate != nil {
				row.Achieved = fmt.Sprintf("%s of %s requested", opt(l.OpsSec), FormatNum(*l.Rate))
			}
			sv.Rows = append(sv.Rows, row)
			if l.Hist == "" || l.Ops == 0 {
				continue
			}
			h, err := DecodeHist(l)
			if err != nil {
				return v, err
			}
			pts := Spectrum(h)
			se := series{Name: label(l)}
			for _, p := range pts {
				se.X = append(se.X, p.Nines)
				se.Y = append(se.Y, p.US)
				maxNines = math.Max(maxNines, p.Nines)
			}
			c.Series = append(c.Series, se)
		}
		c.XTicks = ninesTicks(maxNines)
		if len(c.Series) > 0 {
			sv.Chart = template.HTML(c.SVG())
		}
		v.Scenarios = append(v.Scenarios, sv)
	}
	v.Families = families(lines, label)
	v.Capacity = capacityCharts(lines, label)
	v.Sizing = sizingCharts(lines, multiRun)
	v.History = historyCharts(lines, multiRun)
	v.Verify = verifyCharts(lines, multiRun)
	v.Ratios = ratios(lines, runs, variant)
	v.Summary = summary(v.Ratios)
	for i := range v.Families {
		v.Families[i].Anchor = fmt.Sprintf("f%d", i)
	}
	for i := range v.Ratios {
		v.Ratios[i].Chart = template.HTML(ratioChartSVG(v.Ratios[i]))
	}
	return v, nil
}

// variants tells apart lines of one run, target and scenario that differ
// only in params (a transport run measures the same cell against two
// endpoints): it returns, for a line, the params whose values differ
// within its group as "k=v", or "" when there is nothing to tell apart.
func variants(lines []Line) func(Line) string {
	// Lines of one run, target and scenario measure the same cell unless
	// the run varied something on purpose (a transport run measures a
	// cell against two endpoints): only params that differ there tell
	// series apart. Params that differ between the levels of a family
	// (commit_tables, conflict counts, CPU per op) are the cell's own
	// results or shape, never a series of their own.
	group := func(l Line) string {
		return l.RunID + "\x00" + l.Target + "\x00" + l.Scenario
	}
	sets := map[string][]map[string]any{}
	for _, l := range lines {
		g := group(l)
		sets[g] = append(sets[g], l.Params)
	}
	diff := map[string][]string{}
	for g, ps := range sets {
		keys := map[string]bool{}
		for _, p := range ps {
			for k := range p {
				keys[k] = true
			}
		}
		var ks []string
		for k := range keys {
			if placeParams[k] || strings.HasPrefix(k, "prop.") {
				continue
			}
			first := fmt.Sprint(ps[0][k])
			for _, p := range ps[1:] {
				if fmt.Sprint(p[k]) != first {
					ks = append(ks, k)
					break
				}
			}
		}
		sort.Strings(ks)
		diff[g] = ks
	}
	return func(l Line) string {
		var parts []string
		for _, k := range diff[group(l)] {
			parts = append(parts, fmt.Sprintf("%s=%v", k, l.Params[k]))
		}
		return strings.Join(parts, " ")
	}
}

// familyOf is the scenario's name without its worker level, the
// dimension that level is of and its value: a line whose dims have threads
// (a catalog level, .t<N>) or concurrency (an S3 cell, .c<N>) and whose
// name ends in that value is a point of the family its stem names. A line
// whose name does not end in its level (a latency at one worker, an open
// loop) is in none.
func familyOf(l Line) (string, string, int, bool) {
	for _, d := range []struct{ dim, tag string }{{results.DimThreads, "t"}, {results.DimConcurrency, "c"}} {
		v, ok := l.Dims[d.dim]
		if !ok || v < 1 {
			continue
		}
		n := int(v)
		if stem, ok := strings.CutSuffix(l.Scenario, fmt.Sprintf(".%s%d", d.tag, n)); ok {
			return stem, d.dim, n, true
		}
	}
	return "", "", 0, false
}

func families(lines []Line, label func(Line) string) []familyView {
	var famOrder []string
	pts := map[string]map[string]map[int]float64{}
	var seriesOrder = map[string][]string{}
	dimOf := map[string]string{}
	for _, l := range lines {
		fam, dim, level, ok := familyOf(l)
		if !ok || l.OpsSec == nil || !l.Measured() {
			continue
		}
		if _, ok := pts[fam]; !ok {
			famOrder = append(famOrder, fam)
			pts[fam] = map[string]map[int]float64{}
			dimOf[fam] = dim
		}
		name := label(l)
		if _, ok := pts[fam][name]; !ok {
			seriesOrder[fam] = append(seriesOrder[fam], name)
			pts[fam][name] = map[int]float64{}
		}
		pts[fam][name][level] = *l.OpsSec
	}
	var out []familyView
	for _, fam := range famOrder {
		levels := map[int]bool{}
		c := chart{Title: fam + ": throughput by " + dimOf[fam], XLabel: dimOf[fam] + " (log2)", YLabel: "ops/s", Markers: true}
		for _, name := range seriesOrder[fam] {
			m := pts[fam][name]
			ths := make([]int, 0, len(m))
			for th := range m {
				ths = append(ths, th)
				levels[th] = true
			}
			sort.Ints(ths)
			se := series{Name: name}
			for _, th := range ths {
				se.X = append(se.X, math.Log2(float64(th)))
				se.Y = append(se.Y, m[th])
			}
			c.Series = append(c.Series, se)
		}
		if len(levels) < 2 {
			continue
		}
		lo, hi := math.Inf(1), 0.0
		for _, se := range c.Series {
			for _, y := range se.Y {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		if lo > 0 && hi/lo > 50 {
			c.LogY = true
			c.YLabel = "ops/s (log)"
		}
		var ls []int
		for th := range levels {
			ls = append(ls, th)
		}
		sort.Ints(ls)
		for _, th := range ls {
			c.XTicks = append(c.XTicks, tick{math.Log2(float64(th)), fmt.Sprint(th)})
		}
		out = append(out, familyView{Name: fam, Chart: template.HTML(c.SVG())})
	}
	return out
}

// ratios compares every target of a run with the run's first target, per
// scenario (and per variant, when the run measured a scenario more than
// once): p50 and ops/s as B/A, with the median and min–max of the
// per-round ratios when both lines carry rounds, and B's speed in the
// line's headline metric as a multiple of A's (higher: B better).
// Targets' own params (their store, their URL) never keep two targets'
// cells apart.
func ratios(lines []Line, runs []RunInfo, variant func(Line) string) []ratioRunView {
	var out []ratioRunView
	for _, r := range runs {
		if len(r.Targets) < 2 {
			continue
		}
		base := r.Targets[0]
		type cellKey struct{ target, scen, params string }
		cells := map[cellKey]Line{}
		var order []cellKey
		for _, l := range lines {
			// A capacity line's numbers are of the step at its max_rate,
			// a different rate per target: the capacity section compares
			// them by max_rate instead.
			if l.RunID != r.ID || !l.Measured() || l.Kind == "capacity" {
				continue
			}
			k := cellKey{l.Target, l.Scenario + "\x00" + l.Loop, variant(l)}
			if l.Rate != nil {
				k.params += fmt.Sprintf(" rate=%g", *l.Rate)
			}
			if _, ok := cells[k]; !ok {
				order = append(order, k)
			}
			cells[k] = l
		}
		rv := ratioRunView{RunID: r.ID, Base: base}
		for _, k := range order {
			if k.target == base {
				continue
			}
			a, ok := cells[cellKey{base, k.scen, k.params}]
			if !ok {
				continue
			}
			b := cells[k]
			p50, tie1 := ratioSpread(P50, a, b)
			ops, tie2 := ratioSpread(OpsSec, a, b)
			scen := b.Scenario
			if k.params != "" {
				scen += " (" + strings.TrimSpace(k.params) + ")"
			}
			row := ratioRow{Scenario: scen, Target: k.target, P50: p50, OpsSec: ops, Tie: tie1 || tie2}
			row.Speed, row.speed, row.lo, row.hi, row.ok = speedRatio(a, b)
			rv.Rows = append(rv.Rows, row)
		}
		if len(rv.Rows) > 0 {
			out = append(out, rv)
		}
	}
	return out
}

// ratioSpread formats b/a of metric m: "1.14× [1.02–1.25] n=10" from
// per-round samples of equal count, else the merged values' ratio "n=1".
// It reports a tie when the spread straddles 1.
func ratioSpread(m Metric, a, b Line) (string, bool) {
	if rr, ok := roundRatios(m, a, b); ok {
		return rr.String(), rr.tie()
	}
	va, oka := m.Value(a)
	vb, okb := m.Value(b)
	if !oka || !okb || va == 0 {
		return "—", false
	}
	return fmt.Sprintf("%.3g× (n=1, no spread)", vb/va), false
}

// roundRatio summarises b/a of metric m round by round: the median of the
// per-round ratios, their range and how many rounds.
type roundRatio struct {
	median, lo, hi float64
	n              int
}

// tie reports whether the per-round range straddles 1.
func (r roundRatio) tie() bool { return r.lo < 1 && r.hi > 1 }

// String is "1.14× [1.02–1.25] n=10", with " tie" when the range straddles 1.
func (r roundRatio) String() string {
	s := fmt.Sprintf("%.3g× [%.3g–%.3g] n=%d", r.median, r.lo, r.hi, r.n)
	if r.tie() {
		s += " tie"
	}
	return s
}

// roundRatios is b/a of m per interleaved round; false when the lines do
// not carry the same number (≥ 2) of per-round samples.
func roundRatios(m Metric, a, b Line) (roundRatio, bool) {
	return sampleRatios(m.Samples(a), m.Samples(b))
}

// sampleRatios is sb[i]/sa[i] summarised; false unless both hold the same
// number (≥ 2) of samples.
func sampleRatios(sa, sb []float64) (roundRatio, bool) {
	if len(sa) < 2 || len(sa) != len(sb) {
		return roundRatio{}, false
	}
	rs := make([]float64, len(sa))
	for i := range sa {
		rs[i] = sb[i] / sa[i]
	}
	sort.Float64s(rs)
	return roundRatio{median: median(rs), lo: rs[0], hi: rs[len(rs)-1], n: len(rs)}, true
}

// commitLabel is the line's build revision: "0123456789ab (clean)",
// "… (dirty)" or "… (unchecked)", and words instead of a revision when
// the binary carried none (built without version control information).
func commitLabel(l Line) string {
	sha, state, ok := buildRevision(l)
	if !ok {
		return results.CommitNotRecorded
	}
	return sha + " (" + state + ")"
}

// commitCode is the line's commit for a generated table: "`0123456789ab`
// (clean" + tail + ")", or the words saying it was not recorded.
func commitCode(l Line, tail string) string {
	sha, state, ok := buildRevision(l)
	if !ok {
		return results.CommitNotRecorded
	}
	return "`" + sha + "` (" + state + tail + ")"
}

// buildRevision is the line's commit shortened to 12 hex digits and
// "clean", "dirty" or "unchecked" (a revision named at link time, whose
// tree nobody checked); false when the line records no revision.
func buildRevision(l Line) (sha, state string, ok bool) {
	if !l.Commit.Known() {
		return "", "", false
	}
	sha, state = l.Commit.SHA, l.Commit.TreeState()
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return sha, state, true
}

// speedRatio is b's speed as a multiple of a's in b's headline metric,
// with the per-round range when both carry rounds: "1.23× [1.10–1.40]"
// or "1.23×". ok is false when either side lacks the number.
func speedRatio(a, b Line) (text string, v, lo, hi float64, ok bool) {
	m := HeadlineOf(b)
	inv := func(x float64) float64 {
		if m.HigherBetter {
			return x
		}
		return 1 / x
	}
	if rr, ok := roundRatios(m, a, b); ok {
		v, lo, hi = inv(rr.median), inv(rr.lo), inv(rr.hi)
		if lo > hi {
			lo, hi = hi, lo
		}
		text = fmt.Sprintf("%.3g× [%.3g–%.3g]", v, lo, hi)
		if rr.tie() {
			text += " tie"
		}
		return text, v, lo, hi, true
	}
	va, oka := m.Value(a)
	vb, okb := m.Value(b)
	if !oka || !okb || va == 0 || vb == 0 {
		return "—", 0, 0, 0, false
	}
	v = inv(vb / va)
	return results.FormatRatio(v), v, v, v, true
}

// summary is the headline of each compared pair of targets: over every
// cell both measured, how often B was better or worse than A beyond its
// spread, and the geometric mean, best and worst of B's speed as a
// multiple of A's.
func summary(rs []ratioRunView) []summaryView {
	var out []summaryView
	for _, r := range rs {
		by := map[string]*summaryView{}
		var order []string
		logs := map[string][]float64{}
		best, worst := map[string]ratioRow{}, map[string]ratioRow{}
		for _, row := range r.Rows {
			if !row.ok {
				continue
			}
			sv := by[row.Target]
			if sv == nil {
				sv = &summaryView{RunID: short(r.RunID), Base: r.Base, Target: row.Target}
				by[row.Target] = sv
				order = append(order, row.Target)
			}
			sv.Cells++
			switch {
			case row.lo <= 1 && row.hi >= 1 && row.lo != row.hi, row.speed == 1:
				sv.Ties++
			case row.speed > 1:
				sv.Better++
			default:
				sv.Worse++
			}
			logs[row.Target] = append(logs[row.Target], math.Log(row.speed))
			if b, ok := best[row.Target]; !ok || row.speed > b.speed {
				best[row.Target] = row
			}
			if w, ok := worst[row.Target]; !ok || row.speed < w.speed {
				worst[row.Target] = row
			}
		}
		for _, t := range order {
			sv := by[t]
			sum := 0.0
			for _, x := range logs[t] {
				sum += x
			}
			sv.GeoMean = results.FormatRatio(math.Exp(sum / float64(len(logs[t]))))
			sv.Best = fmt.Sprintf("%.3g× %s", best[t].speed, best[t].Scenario)
			sv.Worst = fmt.Sprintf("%.3g× %s", worst[t].speed, worst[t].Scenario)
			out = append(out, *sv)
		}
	}
	return out
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func opt(p *float64) string {
	if p == nil {
		return "—"
	}
	return FormatNum(*p)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

var reportTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px} h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc} h3{font-size:15px;margin:20px 0 6px}
table{border-collapse:collapse;font-size:12px;margin:6px 0} th,td{border:1px solid #ccc;padding:3px 6px;text-align:right} th{background:#f3f3f3}
td.l,th.l{text-align:left} .tie{color:#a60} .note{color:#666;font-size:12px} .chart{display:block;margin:6px 0;border:1px solid #eee}
section.scenario{display:inline-block;vertical-align:top;margin-right:24px}
nav.toc{font-size:13px;line-height:1.6;border:1px solid #ddd;padding:6px 12px;background:#fafafa} nav.toc ol{margin:4px 0;padding-left:20px}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="note">Generated {{.Generated}} from {{range $i, $s := .Sources}}{{if $i}}, {{end}}<code>{{$s}}</code>{{end}}. Closed-loop lines are service times (coordinated omission not corrected); only open-loop lines are latency under load.</p>
<nav class="toc"><b>Contents</b><ol>
<li><a href="#summary">Summary</a></li>
<li><a href="#runs">Runs</a></li>
{{if .Ratios}}<li><a href="#ratios">A/B ratios</a></li>{{end}}
{{if .Families}}<li><a href="#throughput">Throughput vs threads</a>: {{range $i, $f := .Families}}{{if $i}} · {{end}}<a href="#{{$f.Anchor}}">{{$f.Name}}</a>{{end}}</li>{{end}}
{{if .Capacity}}<li><a href="#capacity">Capacity: latency against throughput</a></li>{{end}}
{{if .Sizing}}<li><a href="#sizing">Sizing: costs against tables</a></li>{{end}}
{{if .History}}<li><a href="#history">Against history depth</a></li>{{end}}
{{if .Verify}}<li><a href="#verify">Commit safety: contention against writers</a></li>{{end}}
<li><a href="#spectra">Percentile spectra</a>: {{range $i, $s := .Scenarios}}{{if $i}} · {{end}}<a href="#{{$s.Anchor}}">{{$s.Name}}</a>{{end}}</li>
</ol></nav>
<h2 id="summary">Summary</h2>
<p>{{len .Runs}} run(s), {{len .Scenarios}} scenarios, {{len .Families}} throughput families.</p>
{{if .Summary}}<p class="note">Speed is each target's headline metric as a multiple of the run's first target (A): A's p50 ÷ B's for latencies, B's ops/s ÷ A's for throughput, so above 1× B is better in every row. A tie is a per-round range that straddles 1×.</p>
<table><tr><th class="l">run</th><th class="l">A</th><th class="l">B</th><th>cells</th><th>B better</th><th>B worse</th><th>ties</th><th>geometric mean speed</th><th class="l">best</th><th class="l">worst</th></tr>
{{range .Summary}}<tr><td class="l">{{.RunID}}</td><td class="l">{{.Base}}</td><td class="l">{{.Target}}</td><td>{{.Cells}}</td><td>{{.Better}}</td><td>{{.Worse}}</td><td>{{.Ties}}</td><td>{{.GeoMean}}</td><td class="l">{{.Best}}</td><td class="l">{{.Worst}}</td></tr>
{{end}}</table>{{else}}<p class="note">No run here compares two targets, so there are no ratios.</p>{{end}}
<h2 id="runs">Runs</h2>
<table><tr><th class="l">run</th><th class="l">time</th><th class="l">host</th><th class="l">commit</th><th class="l">command</th><th class="l">targets</th><th>lines</th></tr>
{{range .Runs}}<tr><td class="l"><code>{{.ID}}</code></td><td class="l">{{.TS}}</td><td class="l">{{.Host}}</td><td class="l">{{.Commit}}</td><td class="l"><code>{{.Command}}</code></td><td class="l">{{.Targets}}</td><td>{{.Lines}}</td></tr>
{{end}}</table>
{{if .Ratios}}<h2 id="ratios">A/B ratios (B/A per cell; median [min–max] of per-round ratios where rounds exist)</h2>
<p class="note">p50 B/A and ops/s B/A are the plain quotients (a p50 below 1× and ops/s above 1× both mean B is better); the speed column turns the headline metric into one direction: above 1× B is better.</p>
{{range .Ratios}}<h3>run <code>{{.RunID}}</code>, A = {{.Base}}</h3>
{{.Chart}}
<table><tr><th class="l">scenario</th><th class="l">B</th><th>p50 B/A</th><th>ops/s B/A</th><th>speed × A (headline, higher = B better)</th></tr>
{{range .Rows}}<tr{{if .Tie}} class="tie"{{end}}><td class="l">{{.Scenario}}</td><td class="l">{{.Target}}</td><td>{{.P50}}</td><td>{{.OpsSec}}</td><td>{{.Speed}}</td></tr>
{{end}}</table>{{end}}{{end}}
{{if .Families}}<h2 id="throughput">Throughput vs threads</h2>
{{range .Families}}<section class="scenario" id="{{.Anchor}}"><h3>{{.Name}}</h3>{{.Chart}}</section>
{{end}}{{end}}
{{if .Capacity}}<h2 id="capacity">Capacity: latency against throughput</h2>
{{range .Capacity}}<section class="scenario"><h3>{{.Name}}</h3>{{.Chart}}</section>
{{end}}{{end}}
{{if .Sizing}}<h2 id="sizing">Sizing: costs against tables (log–log; the number after each name in a legend is its fitted growth exponent, the slope: 0 = flat, 1 = linear, with its 95 % interval where there are three sizes or more)</h2>
{{range .Sizing}}<section class="scenario"><h3>{{.Name}}</h3>{{.Chart}}</section>
{{end}}{{end}}
{{if .History}}<h2 id="history">Against history depth (log–log; the factor per 10× of snapshots is fitted over the levels of one snapshot or more)</h2>
{{range .History}}<section class="scenario"><h3>{{.Name}}</h3>{{.Chart}}</section>
{{end}}{{end}}
{{if .Verify}}<h2 id="verify">Commit safety: contention against writers (katbench verify; a cell that acknowledged nothing has no point)</h2>
{{range .Verify}}<section class="scenario"><h3>{{.Name}}</h3>{{.Chart}}</section>
{{end}}{{end}}
<h2 id="spectra">Percentile spectra per scenario</h2>
{{range .Scenarios}}<section class="scenario" id="{{.Anchor}}"><h3>{{.Name}}</h3>
{{if .Chart}}{{.Chart}}{{else}}<p class="note">no histogram to plot</p>{{end}}
{{if .Rows}}<table><tr><th class="l">series</th><th class="l">loop</th><th>ops</th><th>errors</th><th>p50 µs</th><th>p99 µs</th><th>p999 µs</th><th>max µs</th><th>ops/s</th><th>control p50 µs</th></tr>
{{range .Rows}}<tr><td class="l">{{.Label}}</td><td class="l">{{.Loop}}{{if .Achieved}} ({{.Achieved}}){{end}}</td><td>{{.Ops}}</td><td>{{.Errors}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td><td>{{.OpsSec}}</td><td>{{.Control}}</td></tr>
{{end}}</table>{{end}}
{{range .Skipped}}<p class="note">skipped {{.}}</p>{{end}}
</section>
{{end}}
</body></html>
`))

// ReportFiles renders the lines of paths (results.DefaultHistory when
// none) as WriteReport's page into the file out ("-": stdout), and says
// on log what it wrote. Unreadable input and input without lines are
// ErrInput; nothing is written then.
func ReportFiles(paths []string, out string, o ReportOptions, stdout, log io.Writer) error {
	if len(paths) == 0 {
		paths = []string{results.DefaultHistory}
	}
	lines, err := LoadAll(paths, nil)
	if err != nil {
		return usage.Wrap(ErrInput, err)
	}
	if len(lines) == 0 {
		return usage.Errorf(ErrInput, "no result lines in %v", paths)
	}
	o.Sources = paths
	var buf bytes.Buffer
	if err := WriteReport(&buf, lines, o); err != nil {
		return err
	}
	if out == "-" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if err := results.WriteFileAtomic(out, buf.Bytes()); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = out
	}
	fmt.Fprintf(log, "wrote %s (%d lines, %d KiB)\n", abs, len(lines), (buf.Len()+1023)/1024)
	return nil
}
