package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
)

func init() {
	var (
		file    string
		history string
		check   bool
	)
	cmd := &cobra.Command{
		Use:   "readme",
		Short: "Regenerate the README's result tables from named runs in the history",
		Long: `readme rewrites every block between
  <!-- katbench:table NAME run=RUNID ... -->  and  <!-- /katbench:table -->
in the README from the named run's lines in the history file; each table
states its command, host, date, commit and whether the tree was clean.
With --check nothing is written: exit 1 names the stale tables (make check
runs this). Bad markers or unknown runs exit 2.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			readme, err := os.ReadFile(file)
			if err != nil {
				return usagef("read README: %v", err)
			}
			h, err := analysis.Load(history)
			if err != nil {
				return usageError{err}
			}
			if check {
				err := analysis.CheckReadme(readme, h, history)
				if errors.Is(err, analysis.ErrStale) {
					return err
				}
				if err != nil {
					return usageError{err}
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: result tables match %s\n", file, history)
				return nil
			}
			folded, blocks, err := analysis.FoldReadme(readme, h, history)
			if err != nil {
				return usageError{err}
			}
			if string(folded) == string(readme) {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d tables already up to date\n", file, len(blocks))
				return nil
			}
			if err := writeFileAtomic(file, folded); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d tables regenerated from %s\n", file, len(blocks), history)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&file, "file", "README.md", "the README to rewrite")
	fl.StringVar(&history, "history", "bench_history.jsonl", "history file holding the named runs")
	fl.BoolVar(&check, "check", false, "change nothing; exit 1 when a table differs from the history")
	rootCmd.AddCommand(cmd)
}
