package main

import (
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/results"
)

// compareFlags are the flags compare and ab share.
type compareFlags struct{ analysis.CompareSettings }

// options checks the flags and turns them into compare options.
func (f *compareFlags) options() (analysis.CompareOptions, error) {
	o, err := f.Options()
	return o, asUsage(err)
}

func init() {
	var (
		history string
		abFile  string
		f       compareFlags
	)
	cmd := &cobra.Command{
		Use:   "compare OLD NEW | compare --ab FILE",
		Short: "Compare two sets of runs cell by cell; exit 1 on a significant regression",
		Long: `compare matches the measured lines of OLD and NEW by (host, target,
scenario, loop, defining params) and tests each common cell with a
Mann-Whitney U test (golang.org/x/perf/benchmath) whose samples are
independent runs: the lines of a side are grouped by run_id, and each run
contributes one value per cell, the median of its rounds. Rounds inside
one run share a process, a heap and a moment; they only give that run's own
spread. OLD and NEW are each a comma-separated list of JSONL files, run ids
or commit SHAs (prefixes of at least 4 characters, found in --history); a
commit selects every run of it. --ab FILE reads both sides from a
'katbench ab' session.

A side with fewer runs than the test can ever decide on (4 at α = 0.05)
reads "need 4 runs", never "no significant change". The verdicts of all
cells of the comparison control the false-discovery rate at 5 %
(Benjamini-Hochberg; q is the adjusted p). Where both sides carry
control_p50_us, each run's value is divided by its own control, so a
machine that got slower overall does not read as a regression; a control
that moved by more than ±50 % makes the cell "unreliable". With --margin,
a cell whose interval lies inside the margin reads "same within ±N %".

Exit status: 1 when a cell is significantly slower by more than the
threshold, 0 otherwise (also when cells need more runs), 2 on bad input
(unreadable file, unknown ref, no common cells).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if abFile != "" {
				return cobra.ExactArgs(0)(cmd, args)
			}
			return cobra.ExactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options()
			if err != nil {
				return err
			}
			old, nw, err := analysis.LoadSides(args, history, abFile)
			if err != nil {
				return err
			}
			return f.Report(cmd.OutOrStdout(), old, nw, o)
		},
	}
	f.RegisterFlags(cmd.Flags())
	fl := cmd.Flags()
	results.RegisterHistoryFlag(fl, &history, results.DefaultHistory, "where run ids and commits are looked up")
	fl.StringVar(&abFile, "ab", "", "compare the two sides of a 'katbench ab' output file")
	rootCmd.AddCommand(cmd)
}
