package main

import (
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
)

func init() {
	var (
		out   string
		title string
	)
	cmd := &cobra.Command{
		Use:   "report [FILE...]",
		Short: "Render result lines as one offline HTML page with plots",
		Long: `report reads result lines (default bench_history.jsonl) and writes one
self-contained HTML file: per scenario the HDR percentile spectrum of every
target overlaid (from the encoded histograms), throughput against threads,
A/B ratios with their spread, and each run's host, commit and command.
Inline SVG and CSS only: nothing is fetched when the page opens.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return analysis.ReportFiles(args, out, analysis.ReportOptions{Title: title}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "report.html", "HTML file to write ('-' for stdout)")
	cmd.Flags().StringVar(&title, "title", "katbench report", "page title")
	rootCmd.AddCommand(cmd)
}
