package analysis

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/results"
)

// CompareSettings are compare's settings as a command line gives them
// (each field is the flag of its name).
type CompareSettings struct {
	Metric    string  // "auto" or "" for each line's own; else MetricByName
	Threshold float64 // percent; 0 for the metric's default
	Margin    string  // "" or a percentage like "5%"
	CrossHost bool
	Format    string // text or jsonl
}

// RegisterFlags adds compare's flags (which ab shares) to fl, each
// filling the field of its name.
func (s *CompareSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&s.Metric, "metric", "auto", "what to compare: p50, p99, p999, ops_sec, a counter (allocs, alloc_bytes, read_syscalls, write_syscalls, instructions, cycles), or auto (each line's headline metric — ops_sec for throughput scenarios, p50 otherwise — and every counter both sides carry)")
	fl.Float64Var(&s.Threshold, "threshold", 0, "slowdown in percent a significant change must exceed to fail (default 25 for wall-clock metrics, 10 for deterministic counters)")
	fl.StringVar(&s.Margin, "margin", "", "equivalence margin, e.g. 5%: a cell whose delta interval lies inside ±5 % reads 'same within ±5 %'")
	fl.BoolVar(&s.CrossHost, "cross-host", false, "match cells measured on different hosts (every row says so)")
	results.RegisterFormatFlag(fl, &s.Format, "text", "text or jsonl")
}

// ErrRegression is wrapped by Report's error when a cell is
// significantly slower by more than the threshold.
var ErrRegression = errors.New("regression")

// Report compares old with nw under o (from s.Options), writes the
// comparison to w in s.Format and returns an error wrapping ErrRegression
// when a cell regressed. Compare's own error (ErrNoCommonCells) is
// returned as it is, before anything is written.
func (s CompareSettings) Report(w io.Writer, old, nw []Line, o CompareOptions) error {
	c, err := Compare(old, nw, o)
	if err != nil {
		return err
	}
	if err := c.Write(w, s.Format); err != nil {
		return err
	}
	if n := c.Regressions(); n > 0 {
		return fmt.Errorf("%w: %d of %d cells", ErrRegression, n, len(c.Rows))
	}
	return nil
}

// Options checks s and returns the comparison's options. Every error is
// a bad setting, named by its flag.
func (s CompareSettings) Options() (CompareOptions, error) {
	var o CompareOptions
	bad := fmt.Errorf
	if s.Metric != "auto" && s.Metric != "" {
		m, err := MetricByName(s.Metric)
		if err != nil {
			return o, bad("--metric: %v", err)
		}
		o.Metric = m
	}
	if s.Format != "text" && s.Format != "jsonl" {
		return o, bad("--format %q: want text or jsonl", s.Format)
	}
	if s.Threshold < 0 {
		return o, bad("--threshold %v: must be ≥ 0", s.Threshold)
	}
	o.Threshold = s.Threshold / 100
	if s.Margin != "" {
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s.Margin), "%")), 64)
		if err != nil || v <= 0 || v >= 100 {
			return o, bad("--margin %q: want a percentage between 0 and 100, like 5%%", s.Margin)
		}
		o.Margin = v / 100
	}
	o.CrossHost = s.CrossHost
	return o, nil
}

// Write writes c in format ("jsonl", else text).
func (c Comparison) Write(w io.Writer, format string) error {
	if format == "jsonl" {
		return WriteCompareJSONL(w, c)
	}
	return WriteCompareText(w, c)
}
