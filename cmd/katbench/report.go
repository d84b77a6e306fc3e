package main

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/results"
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
			if len(args) == 0 {
				args = []string{"bench_history.jsonl"}
			}
			lines, err := analysis.LoadAll(args, nil)
			if err != nil {
				return asUsage(err)
			}
			if len(lines) == 0 {
				return usagef("no result lines in %v", args)
			}
			var buf bytes.Buffer
			if err := analysis.WriteReport(&buf, lines, analysis.ReportOptions{Title: title, Sources: args}); err != nil {
				return err
			}
			if out == "-" {
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			if err := results.WriteFileAtomic(out, buf.Bytes()); err != nil {
				return err
			}
			abs, err := filepath.Abs(out)
			if err != nil {
				abs = out
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d lines, %d KiB)\n", abs, len(lines), (buf.Len()+1023)/1024)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "report.html", "HTML file to write ('-' for stdout)")
	cmd.Flags().StringVar(&title, "title", "katbench report", "page title")
	rootCmd.AddCommand(cmd)
}
