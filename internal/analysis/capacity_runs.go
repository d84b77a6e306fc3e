package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// The capacity-runs table (layout=capacity-runs in a katbench:table
// marker) shows every `katbench capacity` run recorded with one label, one
// row per run in the order they started: each target's max_rate and the
// ratios=B/A of B's max_rate over A's. Its last row is the median of each
// ratio over the runs, with their range, so a repeated command shows how
// far runs minutes apart on the same machine move.
//
//	<!-- katbench:table capacity-read-1s-runs label=capacity-read-1s layout=capacity-runs ratios=rest/nessie,rest/polaris -->
//
// A target that met the objective at no rate shows "none", and a ratio
// that needs it "—" (an unmeasured value is absent, never 0).

// capacityRunsTable renders the capacity-runs table of lines, the lines
// of every run with the block's label.
func capacityRunsTable(b Block, lines []Line) (string, error) {
	var runs []RunInfo
	byRun := map[string]map[string]Line{}
	for _, l := range lines {
		if l.Kind != "capacity" {
			continue
		}
		if byRun[l.RunID] == nil {
			byRun[l.RunID] = map[string]Line{}
		}
		byRun[l.RunID][l.Target] = l
	}
	for _, ri := range Runs(lines) {
		if byRun[ri.ID] != nil {
			runs = append(runs, ri)
		}
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("%w: no capacity line among these runs", ErrNoLines)
	}
	sortByStart(runs)
	var targets []string
	if t := b.Attrs["targets"]; t != "" {
		targets = strings.Split(t, ",")
	} else {
		for _, ri := range runs {
			for _, t := range ri.Targets {
				if _, ok := byRun[ri.ID][t]; ok && !contains(targets, t) {
					targets = append(targets, t)
				}
			}
		}
	}
	ratios, err := parseRatios(b.Attrs["ratios"])
	if err != nil {
		return "", err
	}
	for _, t := range append(append([]string{}, targets...), ratioTargets(ratios)...) {
		found := false
		for _, ri := range runs {
			_, ok := byRun[ri.ID][t]
			found = found || ok
		}
		if !found {
			return "", fmt.Errorf("%w: target %q has no capacity line in these runs", ErrNoLines, t)
		}
	}
	maxRate := func(run, target string) (float64, bool) {
		l, ok := byRun[run][target]
		if !ok || l.Skipped != "" {
			return 0, false
		}
		m, ok := l.Measure("max_rate")
		return m.Value, ok && m.Value > 0
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Objective `%s`; max_rate in ops/s, one row per run.\n\n", byRun[runs[0].ID][targets[0]].Params["slo"])
	sb.WriteString("| run | started (UTC) |")
	for _, t := range targets {
		sb.WriteString(" " + t + " |")
	}
	for _, r := range ratios {
		fmt.Fprintf(&sb, " %s / %s |", r.num, r.den)
	}
	sb.WriteString("\n|---|---|" + strings.Repeat("---|", len(targets)+len(ratios)) + "\n")
	samples := make([][]float64, len(ratios))
	for _, ri := range runs {
		fmt.Fprintf(&sb, "| `%s` | %s |", ri.ID, ri.First.TS.UTC().Format("2006-01-02 15:04"))
		for _, t := range targets {
			cell := "—"
			if _, ok := byRun[ri.ID][t]; ok {
				cell = "none"
				if v, ok := maxRate(ri.ID, t); ok {
					cell = fmtRate(v)
				}
			}
			sb.WriteString(" " + cell + " |")
		}
		for i, r := range ratios {
			n, okN := maxRate(ri.ID, r.num)
			d, okD := maxRate(ri.ID, r.den)
			if !okN || !okD {
				sb.WriteString(" — |")
				continue
			}
			samples[i] = append(samples[i], n/d)
			sb.WriteString(" " + results.FormatRatio(n/d) + " |")
		}
		sb.WriteString("\n")
	}
	if len(ratios) > 0 {
		sb.WriteString("| median (min–max) | |" + strings.Repeat(" |", len(targets)))
		for _, s := range samples {
			if len(s) == 0 {
				sb.WriteString(" — |")
				continue
			}
			lo, hi := slices.Min(s), slices.Max(s)
			fmt.Fprintf(&sb, " %s (%s) |", results.FormatRatio(median(s)), ratioRange(lo, hi))
		}
		sb.WriteString("\n")
	}
	return sb.String(), nil
}

// ratioTargets lists the targets ratios name, each once.
func ratioTargets(ratios []ratioSpec) []string {
	var out []string
	for _, r := range ratios {
		for _, t := range []string{r.num, r.den} {
			if t != "" && !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func init() {
	RegisterLayout(Layout{Name: "capacity-runs", Doc: "every capacity run with the label, one row each", Attrs: []string{"targets", "ratios"}, Runs: EveryRun,
		Render: func(b Block, lines []Line, _ RunInfo, _ Sources) (string, error) { return capacityRunsTable(b, lines) }})
}
