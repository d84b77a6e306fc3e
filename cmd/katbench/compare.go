package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
)

// errRegression makes compare exit 1 without being a usage error.
var errRegression = errors.New("regression")

func init() {
	var (
		history   string
		metric    string
		threshold float64
		crossHost bool
		format    string
	)
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two runs cell by cell; exit 1 on a significant regression",
		Long: `compare matches the measured lines of OLD and NEW by (host, target,
scenario, loop, defining params) and tests each common cell with a
Mann-Whitney U test over per-round samples (golang.org/x/perf/benchmath).
OLD and NEW are JSONL files, or run ids / commit SHAs (prefixes of at least
4 characters) found in --history.

A line without per-round samples is one sample: its cell says "no test"
rather than inventing significance. Where both sides carry control_p50_us
the test runs on value/control, so a machine that got slower overall does
not read as a regression; a control that moved by more than ±50 % makes
the cell "unreliable".

Exit status: 1 when a cell is significantly slower by more than the
threshold, 0 otherwise, 2 on bad input (unreadable file, unknown ref, no
common cells).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var m analysis.Metric // auto: each cell's headline metric
			if metric != "auto" {
				var err error
				if m, err = analysis.MetricByName(metric); err != nil {
					return usagef("--metric: %v", err)
				}
			}
			if format != "text" && format != "jsonl" {
				return usagef("--format %q: want text or jsonl", format)
			}
			if threshold < 0 {
				return usagef("--threshold %v: must be ≥ 0", threshold)
			}
			old, err := loadSide(args[0], history)
			if err != nil {
				return usagef("OLD: %v", err)
			}
			nw, err := loadSide(args[1], history)
			if err != nil {
				return usagef("NEW: %v", err)
			}
			c, err := analysis.Compare(old, nw, analysis.CompareOptions{Metric: m, Threshold: threshold / 100, CrossHost: crossHost})
			if err != nil {
				return usageError{err}
			}
			out := cmd.OutOrStdout()
			if format == "jsonl" {
				err = analysis.WriteCompareJSONL(out, c)
			} else {
				err = analysis.WriteCompareText(out, c)
			}
			if err != nil {
				return err
			}
			if n := c.Regressions(); n > 0 {
				return fmt.Errorf("%w: %d of %d cells", errRegression, n, len(c.Rows))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&history, "history", "bench_history.jsonl", "history file where run ids and commits are looked up")
	fl.StringVar(&metric, "metric", "auto", "what to compare: p50, p99, p999, ops_sec, or auto (each line's headline metric: ops_sec for throughput scenarios, p50 otherwise; p50 for lines that do not say)")
	fl.Float64Var(&threshold, "threshold", 0, "slowdown in percent a significant change must exceed to fail (default 25 for wall-clock metrics, 10 for deterministic counters)")
	fl.BoolVar(&crossHost, "cross-host", false, "match cells measured on different hosts (every row says so)")
	fl.StringVar(&format, "format", "text", "output: text or jsonl")
	rootCmd.AddCommand(cmd)
}

// loadSide reads ref as a JSONL file when one exists at that path, else as
// a run id or commit prefix in the history file.
func loadSide(ref, history string) ([]analysis.Line, error) {
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return analysis.Load(ref)
	}
	if history == "" {
		return nil, fmt.Errorf("%s: no such file and no --history to look it up in", ref)
	}
	h, err := analysis.Load(history)
	if err != nil {
		return nil, fmt.Errorf("%s is not a file; looking it up in the history: %w", ref, err)
	}
	return analysis.SelectRef(h, ref)
}
