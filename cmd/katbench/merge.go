package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
)

func init() {
	var (
		out       string
		crossHost bool
	)
	cmd := &cobra.Command{
		Use:   "merge [FILE...]",
		Short: "Merge lines of the same cell by adding their histograms",
		Long: `merge reads result lines (files, or stdin when none is given) and writes one
line per cell whose ops, errors and percentiles come from the sum of the
cells' decoded HdrHistograms — percentiles are never averaged. merged_from
lists the source run ids. Lines of different hosts stay apart unless
--cross-host (a distributed run: N workers, one cell). Lines of different
builds, or without a histogram, are refused.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var lines []analysis.Line
			if len(args) == 0 {
				ls, err := analysis.Read(cmd.InOrStdin(), "stdin")
				if err != nil {
					return usageError{err}
				}
				lines = ls
			}
			for _, p := range args {
				ls, err := analysis.Load(p)
				if err != nil {
					return usageError{err}
				}
				lines = append(lines, ls...)
			}
			ms, err := analysis.Merge(lines, analysis.MergeOptions{CrossHost: crossHost})
			if err != nil {
				return usageError{err}
			}
			if len(ms) == 0 {
				return usagef("nothing to merge: no measured lines in the input")
			}
			var buf bytes.Buffer
			for _, m := range ms {
				buf.Write(m.JSON)
				buf.WriteByte('\n')
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			return writeFileAtomic(out, buf.Bytes())
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged lines to this file (default stdout)")
	cmd.Flags().BoolVar(&crossHost, "cross-host", false, "merge lines of the same cell measured on different hosts")
	rootCmd.AddCommand(cmd)
}

// writeFileAtomic writes b to path through a temporary file in the same
// directory and a rename, so a reader never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // no-op after the rename
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
