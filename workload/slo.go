package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// ErrBadSLO is returned by ParseSLO for an objective it cannot read.
var ErrBadSLO = errors.New("bad --slo")

// Objective is one latency objective: a percentile of the whole mix (Op
// empty) or of one of its operations, at most Max.
type Objective struct {
	Op         string
	Percentile float64 // 0 < Percentile < 100 (p100 is the max: not an objective a run can settle)
	Max        time.Duration
}

// Key names the objective's value in a step: "p99", "commit_table:p99".
func (o Objective) Key() string {
	p := "p" + strconv.FormatFloat(o.Percentile, 'g', -1, 64)
	if o.Op == "" {
		return p
	}
	return o.Op + ":" + p
}

// String is the objective in ParseSLO's form.
func (o Objective) String() string { return o.Key() + "<=" + o.Max.String() }

// SLO is what a capacity step must meet: every latency objective, and an
// error rate (failed / all measured operations) at most MaxErrorRate. An
// SLO value is immutable and safe for concurrent use.
type SLO struct {
	Latency      []Objective
	MaxErrorRate float64
}

// String is the SLO in ParseSLO's form.
func (s SLO) String() string {
	parts := make([]string, 0, len(s.Latency)+1)
	for _, o := range s.Latency {
		parts = append(parts, o.String())
	}
	parts = append(parts, "errors<="+strconv.FormatFloat(s.MaxErrorRate, 'g', -1, 64))
	return strings.Join(parts, ",")
}

// SLOHelp describes the accepted forms.
const SLOHelp = "comma-separated objectives: [OPERATION:]pNN<=DURATION (p99<=50ms, p99.9<=200ms, commit_table:p99<=200ms) " +
	"and errors<=FRACTION (default errors<=0: a step with any failed operation breaks the objective)"

// ParseSLO reads a --slo value (see SLOHelp). It needs at least one
// latency objective; an operation it names must be one a mix can weigh.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lhs, rhs, ok := strings.Cut(part, "<=")
		lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
		if !ok || lhs == "" || rhs == "" {
			return SLO{}, fmt.Errorf("%w: %q: want [OPERATION:]pNN<=DURATION or errors<=FRACTION", ErrBadSLO, part)
		}
		if seen[lhs] {
			return SLO{}, fmt.Errorf("%w: %q given twice", ErrBadSLO, lhs)
		}
		seen[lhs] = true
		if lhs == "errors" {
			v, err := strconv.ParseFloat(strings.TrimSuffix(rhs, "%"), 64)
			if strings.HasSuffix(rhs, "%") {
				v /= 100
			}
			if err != nil || !(v >= 0 && v <= 1) {
				return SLO{}, fmt.Errorf("%w: %q: the error rate must be a fraction from 0 to 1 (or a percentage)", ErrBadSLO, part)
			}
			slo.MaxErrorRate = v
			continue
		}
		var o Objective
		if op, p, ok := strings.Cut(lhs, ":"); ok {
			if _, known := opDocs[op]; !known {
				return SLO{}, fmt.Errorf("%w: %q: unknown operation %q (operations: %s)", ErrBadSLO, part, op, strings.Join(MixOps(), ", "))
			}
			o.Op, lhs = op, p
		}
		if !strings.HasPrefix(lhs, "p") {
			return SLO{}, fmt.Errorf("%w: %q: %q is not a percentile like p99", ErrBadSLO, part, lhs)
		}
		q, err := strconv.ParseFloat(lhs[1:], 64)
		if err != nil || math.IsNaN(q) || !(q > 0 && q < 100) {
			return SLO{}, fmt.Errorf("%w: %q: percentile %q must be above p0 and below p100", ErrBadSLO, part, lhs)
		}
		o.Percentile = q
		d, err := time.ParseDuration(rhs)
		if err != nil || d <= 0 || d > time.Hour {
			return SLO{}, fmt.Errorf("%w: %q: bound %q must be a duration like 50ms, up to 1h", ErrBadSLO, part, rhs)
		}
		o.Max = d
		slo.Latency = append(slo.Latency, o)
	}
	if len(slo.Latency) == 0 {
		return SLO{}, fmt.Errorf("%w: %q: no latency objective (want e.g. p99<=50ms)", ErrBadSLO, s)
	}
	return slo, nil
}

// CheckMix rejects an objective on an operation the mix does not run.
func (s SLO) CheckMix(m Mix) error {
	for _, o := range s.Latency {
		if o.Op != "" && !m.Has(o.Op) {
			return fmt.Errorf("%w: %s: mix %s does not run %s", ErrBadSLO, o, m.Name, o.Op)
		}
	}
	return nil
}

// Judge says whether a step met the SLO: its values per objective (µs),
// and why not when it did not. total is the whole mix; byOp its
// operations'.
func (s SLO) Judge(total *results.Recorder, byOp map[string]*results.Recorder) (values map[string]float64, met bool, why string) {
	values = map[string]float64{}
	met = true
	all := total.Count() + total.Errors()
	if all == 0 {
		return values, false, "no operation was measured"
	}
	if rate := float64(total.Errors()) / float64(all); rate > s.MaxErrorRate {
		met, why = false, fmt.Sprintf("error rate %.4g > %.4g", rate, s.MaxErrorRate)
	}
	for _, o := range s.Latency {
		rec := total
		if o.Op != "" {
			rec = byOp[o.Op]
		}
		if rec == nil || rec.Count() == 0 {
			if met {
				met, why = false, o.Key()+": no successful operation"
			}
			continue
		}
		v := rec.Percentile(o.Percentile)
		values[o.Key()] = float64(v) / 1e3
		if v > o.Max && met {
			met, why = false, fmt.Sprintf("%s %s > %s", o.Key(), v.Round(time.Microsecond), o.Max)
		}
	}
	return values, met, why
}
