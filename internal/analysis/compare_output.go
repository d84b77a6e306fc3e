package analysis

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteCompareText prints a comparison as an aligned table, one row per
// cell and metric, then the cells only one side has and a summary that
// names the correction for many cells.
func WriteCompareText(w io.Writer, c Comparison) error {
	fmt.Fprintf(w, "OLD: %d runs, NEW: %d runs; each run is one sample (the median of its rounds)\n", c.OldRuns, c.NewRuns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tscenario\tmetric\told\tnew\tdelta\tinterval\tp\tq\truns\tverdict\tnotes")
	for _, r := range c.Rows {
		unit := r.Unit
		if r.Normalised {
			unit = "×ctl"
		}
		notes := append([]string(nil), r.Notes...)
		if r.Normalised {
			notes = append(notes, fmt.Sprintf("raw %s %+.1f %%", r.Metric, 100*r.RawDelta))
		}
		if r.Old.RunSpread != nil && r.New.RunSpread != nil {
			notes = append(notes, fmt.Sprintf("within-run spread %.0f %% / %.0f %%", 100**r.Old.RunSpread, 100**r.New.RunSpread))
		}
		if r.CrossHost != "" {
			notes = append([]string{r.CrossHost}, notes...)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\t%+.1f %%\t%s\t%s\t%s\t%d/%d\t%s\t%s\n",
			r.Target, r.Scen, r.Metric, unit, fmtStat(r.Old), fmtStat(r.New), 100*r.Delta,
			fmtInterval(r.DeltaLo, r.DeltaHi), fmtP(r.P), fmtP(r.Q), r.Old.N, r.New.N, r.VerdictText(), strings.Join(notes, "; "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, cell := range c.OnlyOld {
		fmt.Fprintf(w, "only in OLD: %s%s\n", cell, paramsDiff(cell, c.OnlyNew))
	}
	for _, cell := range c.OnlyNew {
		fmt.Fprintf(w, "only in NEW: %s%s\n", cell, paramsDiff(cell, c.OnlyOld))
	}
	fmt.Fprintf(w, "%s over %d tests: false-discovery rate %g (q is p adjusted for the number of tests)", c.Correction, c.Tests, c.Alpha)
	if c.Tests > 1 {
		fmt.Fprintf(w, "; a change in one cell alone needs %d runs a side to be found", MinRuns(c.Alpha/float64(c.Tests)))
	}
	fmt.Fprintln(w)
	_, err := fmt.Fprintf(w, "%d cells compared: %d faster, %d slower (%d regressions), %d same, %d no significant change, %d need more runs, %d unreliable\n",
		len(c.Rows), c.Count(Faster), c.Count(Slower), c.Regressions(), c.Count(Same), c.Count(NoChange), c.Count(NeedRuns), c.Count(Unreliable))
	return err
}

// WriteCompareJSONL writes one JSON object per compared cell.
func WriteCompareJSONL(w io.Writer, c Comparison) error {
	enc := json.NewEncoder(w)
	for _, r := range c.Rows {
		r.Old, r.New = jsonStat(r.Old), jsonStat(r.New)
		if err := enc.Encode(struct {
			Row
			Params     string `json:"params"`
			Text       string `json:"verdict_text"`
			Correction string `json:"correction"`
			Tests      int    `json:"tests"`
		}{r, r.Cell.Params, r.VerdictText(), c.Correction, c.Tests}); err != nil {
			return fmt.Errorf("encode comparison row: %w", err)
		}
	}
	return nil
}

// jsonStat replaces unbounded interval ends (which JSON cannot hold) by
// the centre, and the row's n says why.
func jsonStat(s Stat) Stat {
	if math.IsInf(s.Lo, 0) || math.IsNaN(s.Lo) {
		s.Lo = s.Center
	}
	if math.IsInf(s.Hi, 0) || math.IsNaN(s.Hi) {
		s.Hi = s.Center
	}
	return s
}

func fmtStat(s Stat) string {
	if finite(s.Lo, s.Hi) && s.N > 1 {
		return fmt.Sprintf("%s [%s, %s]", FormatNum(s.Center), FormatNum(s.Lo), FormatNum(s.Hi))
	}
	return FormatNum(s.Center)
}

func fmtInterval(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return "—"
	}
	return fmt.Sprintf("[%+.1f %%, %+.1f %%]", 100**lo, 100**hi)
}

func fmtP(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *p)
}

// FormatNum prints a measured number with about four significant digits
// and thousands separators: 0.485, 26.2, 1,337, 2,295,716.
func FormatNum(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "—"
	case a == 0:
		return "0"
	case a < 10:
		return fmt.Sprintf("%.3f", v)
	case a < 100:
		return fmt.Sprintf("%.2f", v)
	case a < 1000:
		return fmt.Sprintf("%.1f", v)
	default:
		return Thousands(int64(math.Round(v)))
	}
}

// Thousands writes n with a comma between each group of three digits.
func Thousands(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// paramsDiff says, for a cell one side alone has, how the nearest cell of
// the same target, scenario and loop on the other side (the one that
// differs in the fewest params) differs in the params that define the
// work (a param one build added, a changed default), so an unpaired cell
// comes with the reason; "" when the other side has none.
func paramsDiff(cell CellKey, others []CellKey) string {
	var mine map[string]any
	if json.Unmarshal([]byte(cell.Params), &mine) != nil {
		return ""
	}
	var best []string
	for _, o := range others {
		var theirs map[string]any
		if o.Target != cell.Target || o.Scenario != cell.Scenario || o.Loop != cell.Loop || o.Host != cell.Host ||
			json.Unmarshal([]byte(o.Params), &theirs) != nil {
			continue
		}
		var d []string
		for _, k := range sortedAnyKeys(mine, theirs) {
			a, inA := mine[k]
			b, inB := theirs[k]
			switch {
			case !inB:
				d = append(d, fmt.Sprintf("%s=%v here only", k, a))
			case !inA:
				d = append(d, fmt.Sprintf("%s=%v there only", k, b))
			case fmt.Sprint(a) != fmt.Sprint(b):
				d = append(d, fmt.Sprintf("%s %v here, %v there", k, a, b))
			}
		}
		if len(d) > 0 && (best == nil || len(d) < len(best)) {
			best = d
		}
	}
	if best == nil {
		return ""
	}
	return " (the other side's nearest cell of that name differs: " + strings.Join(best, ", ") + ")"
}

// sortedAnyKeys is the union of the maps' keys, sorted.
func sortedAnyKeys(ms ...map[string]any) []string {
	seen := map[string]bool{}
	var ks []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}
