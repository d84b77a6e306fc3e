package analysis

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Capacity lines (kind "capacity", from `katbench capacity`) carry their
// search's steps in params.steps: offered and achieved rate and the
// objectives' percentiles per step. The report draws them as the latency
// against throughput curve of every target on one chart per mix and
// objective, with the objective drawn in as a horizontal line.

// capacityStep is one step as a capacity line writes it
// (workload.CapacityStep).
type capacityStep struct {
	Rate     float64            `json:"rate"`
	Achieved float64            `json:"achieved"`
	Values   map[string]float64 `json:"objectives_us"` // µs by objective key
	Met      bool               `json:"met"`
	Settled  bool               `json:"settled"`
	Kept     bool               `json:"kept"` // achieved the search's share of the offered rate
	Why      string             `json:"why"`
	Errors   int64              `json:"errors"`
	Sched    *float64           `json:"sched_p99_us"` // the pacer's scheduling error p99, µs; nil: not on the line
}

// schedP99 is the step's scheduling error p99 in µs, NaN when the line
// has none.
func (st capacityStep) schedP99() float64 {
	if st.Sched == nil {
		return math.NaN()
	}
	return *st.Sched
}

// capacityParams are the params of a capacity line the report reads: the
// steps, the objectives, the search.
type capacityParams struct {
	Steps  []capacityStep `json:"steps"`
	SLO    string         `json:"slo"`
	Search struct {
		StepDurationS float64 `json:"step_duration_s"`
		StepMinOps    float64 `json:"step_min_ops"`
	} `json:"search"`
}

// capacityParamsOf decodes a line's capacity params; the zero value when
// they are not what a capacity line writes.
func capacityParamsOf(l Line) capacityParams {
	var p capacityParams
	if err := l.paramsAs(&p); err != nil {
		return capacityParams{}
	}
	return p
}

// capacitySteps reads a capacity line's steps; false when it has none.
func capacitySteps(l Line) ([]capacityStep, bool) {
	steps := capacityParamsOf(l).Steps
	return steps, len(steps) > 0
}

// objectiveBounds reads the latency objectives of a line's params.slo
// ("p99<=50ms,commit_table:p99<=200ms,errors<=0") as key → bound in µs.
func objectiveBounds(l Line) map[string]float64 {
	s := capacityParamsOf(l).SLO
	out := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "<=")
		if !ok || k == "errors" {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			continue
		}
		out[k] = float64(d) / 1e3
	}
	return out
}

// capacityCharts draws one chart per (capacity scenario, objective): each
// target's objective percentile against the rate each step offered, in
// rate order, and the objective's bound. The offered rate, not the
// achieved one: a step that could not keep its rate achieved less than an
// easier step did, and against achieved rates its curve would fold back
// on itself; its latencies (from the intended starts) show the overload.
func capacityCharts(lines []Line, label func(Line) string) []familyView {
	type key struct{ scenario, objective string }
	var order []key
	seen := map[key]bool{}
	byKey := map[key][]Line{}
	for _, l := range lines {
		if l.Kind != "capacity" || l.Skipped != "" {
			continue
		}
		if _, ok := capacitySteps(l); !ok {
			continue
		}
		bounds := objectiveBounds(l)
		objs := make([]string, 0, len(bounds))
		for k := range bounds {
			objs = append(objs, k)
		}
		sort.Strings(objs)
		for _, o := range objs {
			k := key{l.Scenario, o + "<=" + strconv.FormatFloat(bounds[o], 'g', -1, 64)}
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], l)
		}
	}
	var out []familyView
	for _, k := range order {
		obj, boundS, _ := strings.Cut(k.objective, "<=")
		bound, _ := strconv.ParseFloat(boundS, 64)
		c := chart{Title: fmt.Sprintf("%s: %s against offered rate (objective %s ≤ %s)", k.scenario, obj, obj, fmtMicros(bound)),
			XLabel: "offered ops/s (log)", YLabel: obj + " ms (log)", LogY: true, Markers: true}
		xlo, xhi := math.Inf(1), math.Inf(-1)
		for _, l := range byKey[k] {
			steps, _ := capacitySteps(l)
			sort.SliceStable(steps, func(i, j int) bool { return steps[i].Rate < steps[j].Rate })
			se := series{Name: label(l)}
			if mr, ok := l.Measure("max_rate"); ok {
				se.Name += " · max " + fmtRate(mr.Value) + " ops/s"
			}
			for _, st := range steps {
				v, ok := st.Values[obj]
				if !ok || st.Rate <= 0 || v <= 0 {
					continue
				}
				x := math.Log10(st.Rate)
				se.X, se.Y = append(se.X, x), append(se.Y, v/1e3) // ms: short tick labels
				xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			}
			c.Series = append(c.Series, se)
		}
		if math.IsInf(xlo, 0) {
			continue
		}
		lo, hi := math.Floor(xlo), math.Ceil(xhi)
		if hi == lo {
			hi = lo + 1
		}
		for d := lo; d <= hi; d++ {
			c.XTicks = append(c.XTicks, tick{d, fmtRate(math.Pow(10, d))})
		}
		// The objective: a horizontal line across the plot.
		c.Series = append(c.Series, series{Name: "objective " + obj + " ≤ " + fmtMicros(bound), X: []float64{lo, hi}, Y: []float64{bound / 1e3, bound / 1e3}})
		out = append(out, familyView{Name: k.scenario + " · " + obj, Chart: template.HTML(c.SVG())})
	}
	return out
}
