package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// The capacity table (layout=capacity in a katbench:table marker) shows a
// `katbench capacity` run: per target its max_rate, the mix's objective
// percentiles at that rate, the step that broke the objective above it
// and why, the pacer's own scheduling error at max_rate, the highest
// offered rate the target kept whether or not it met the objective, and
// how many steps the search took (and how many did not settle).
// ratios=B/A adds rows of B's max_rate over A's.
//
//	<!-- katbench:table capacity-read layout=capacity ratios=rest/nessie,rest/polaris -->

// capacityTable renders the capacity table of run.
func capacityTable(b Block, run []Line, info RunInfo) (string, error) {
	targets := info.Targets
	if t := b.Attrs["targets"]; t != "" {
		targets = strings.Split(t, ",")
	}
	byTarget := map[string]Line{}
	for _, l := range run {
		if l.Kind == "capacity" {
			byTarget[l.Target] = l
		}
	}
	if len(byTarget) == 0 {
		return "", fmt.Errorf("%w: run %s has no capacity line", ErrNoLines, info.ID)
	}
	var sb strings.Builder
	objs := ""
	for _, t := range targets {
		l, ok := byTarget[t]
		if !ok {
			return "", fmt.Errorf("%w: target %q has no capacity line in run %s", ErrNoLines, t, info.ID)
		}
		if objs == "" {
			objs = fmt.Sprint(l.Params["slo"])
		}
	}
	fmt.Fprintf(&sb, "Objective `%s`; steps of `%s`.\n\n", objs, capacityStepText(byTarget[targets[0]]))
	sb.WriteString("| target | store | max_rate ops/s | at max_rate | broke above it | sched p99 at max_rate | highest step kept | steps (unsettled) |\n|---|---|---|---|---|---|---|---|\n")
	for _, t := range targets {
		l := byTarget[t]
		store := fmt.Sprint(l.Params["store"])
		if _, ok := l.Params["store"]; !ok {
			store = fmt.Sprint(l.Params["durability"]) + " durability"
		}
		if l.Skipped != "" {
			fmt.Fprintf(&sb, "| %s | %s | skipped: %s | | | | | |\n", t, store, l.Skipped)
			continue
		}
		steps, _ := capacitySteps(l)
		unsettled, kept := 0, 0.0
		for _, st := range steps {
			if !st.Settled {
				unsettled++
			}
			if st.Kept {
				kept = math.Max(kept, st.Rate)
			}
		}
		keptText := "none"
		if kept > 0 {
			keptText = fmtRate(kept)
		}
		mr, ok := l.Measure("max_rate")
		rate, at, sched := "none", "—", "—"
		if ok {
			rate = fmtRate(mr.Value)
			if st, found := stepAt(steps, mr.Value); found {
				at, sched = objectivesText(st), fmtMicros(st.schedP99())
			}
		} else if failed, bad := l.Params["capacity_failed"]; bad {
			rate = fmt.Sprintf("failed: %v", failed)
		} else {
			rate = fmt.Sprintf("none (%v)", l.Params["search_end"])
		}
		broke := "—"
		if st, found := brokeAbove(steps, mr.Value); found {
			broke = fmt.Sprintf("%s: %s", fmtRate(st.Rate), st.Why)
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %d (%d) |\n", t, store, rate, at, broke, sched, keptText, len(steps), unsettled)
	}
	ratios, err := parseRatios(b.Attrs["ratios"])
	if err != nil {
		return "", err
	}
	if len(ratios) > 0 {
		sb.WriteString("\n| max_rate ratio | value |\n|---|---|\n")
		for _, r := range ratios {
			num, den := r.num, r.den
			a, okA := byTarget[den].Measure("max_rate")
			bb, okB := byTarget[num].Measure("max_rate")
			v := "— (a side has no max_rate)"
			if okA && okB && a.Value > 0 {
				v = results.FormatRatio(bb.Value/a.Value) + " (one run: no spread)"
			}
			fmt.Fprintf(&sb, "| %s / %s | %s |\n", num, den, v)
		}
	}
	return sb.String(), nil
}

// capacityStepText says how long the run's steps were.
func capacityStepText(l Line) string {
	s := capacityParamsOf(l).Search
	d, n := s.StepDurationS, s.StepMinOps
	return fmt.Sprintf("%s and at least %s operations", time.Duration(d*float64(time.Second)), fmtRate(n))
}

// stepAt is the met step at rate.
func stepAt(steps []capacityStep, rate float64) (capacityStep, bool) {
	for _, st := range steps {
		if st.Met && st.Rate == rate {
			return st, true
		}
	}
	return capacityStep{}, false
}

// brokeAbove is the lowest-rate step above rate that did not meet the
// objective (any failed step when rate is 0).
func brokeAbove(steps []capacityStep, rate float64) (capacityStep, bool) {
	var best capacityStep
	found := false
	for _, st := range steps {
		if !st.Met && st.Rate > rate && (!found || st.Rate < best.Rate) {
			best, found = st, true
		}
	}
	return best, found
}

// objectivesText lists a step's objective percentiles, by key.
func objectivesText(st capacityStep) string {
	keys := make([]string, 0, len(st.Values))
	for k := range st.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + fmtMicros(st.Values[k])
	}
	return strings.Join(parts, ", ")
}

// fmtMicros prints a duration given in µs: 850 µs, 5.75 ms, 1.2 s.
func fmtMicros(us float64) string {
	switch {
	case math.IsNaN(us):
		return "—"
	case us < 1000:
		return fmt.Sprintf("%.0f µs", us)
	case us < 1e6:
		return fmt.Sprintf("%.3g ms", us/1e3)
	default:
		return fmt.Sprintf("%.3g s", us/1e6)
	}
}

// fmtRate prints a rate in whole operations per second.
func fmtRate(v float64) string { return Thousands(int64(math.Round(v))) }

func init() {
	RegisterLayout(Layout{Name: "capacity", Doc: "a capacity run: the highest rate each target sustains under its objective", Attrs: []string{"targets", "ratios"},
		Render: func(b Block, run []Line, info RunInfo, _ Sources) (string, error) { return capacityTable(b, run, info) }})
}
