package main

import (
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
)

func init() {
	var (
		out       string
		crossHost bool
		force     bool
	)
	cmd := &cobra.Command{
		Use:   "merge [FILE...]",
		Short: "Merge lines of the same cell by adding their histograms",
		Long: `merge reads result lines (files, or stdin when none is given) and writes one
line per cell whose ops, errors and percentiles come from the sum of the
cells' decoded HdrHistograms — percentiles are never averaged. merged_from
lists the source run ids. Lines of different hosts stay apart unless
--cross-host (a distributed run: N workers, one cell). Lines of different
builds, or without a histogram, are refused. Merged lines of concurrent
sources carry skew_start_ms and skew_end_ms: how far apart their measured
windows began and ended. A cross-host cell whose sources measured together
for less than 90 % of the merged span is refused unless --force.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return analysis.MergeFiles(args, cmd.InOrStdin(), cmd.OutOrStdout(), out, analysis.MergeOptions{CrossHost: crossHost, Force: force})
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged lines to this file (default stdout)")
	cmd.Flags().BoolVar(&crossHost, "cross-host", false, "merge lines of the same cell measured on different hosts")
	cmd.Flags().BoolVar(&force, "force", false, "with --cross-host: merge cells whose workers' windows overlap less than 90 % (the line still says its skew)")
	rootCmd.AddCommand(cmd)
}
