package main

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/ab"
	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/lifecycle"
)

func init() {
	var (
		s ab.Settings
		f compareFlags
	)
	cmd := &cobra.Command{
		Use:   "ab --old BIN_OR_REV --new BIN_OR_REV [--runs 10] -- run TARGET… [flags]",
		Short: "Run two builds alternately in fresh processes and compare them",
		Long: `ab runs the katbench command after -- with two builds, alternately
(old, new, new, old, old, new, …), each run a fresh process, --runs times
per side, with a cool-down between runs. Before each run it waits (at most
--load-wait) for the one-minute load average to drop to --max-load; every
line records the load before and after its run and whether it stayed
within the limit (ab.load_ok).

--old and --new are each an executable katbench binary or a git revision of
the repository at --repo, built from a clean checkout in a temporary
directory (never from the working tree; removed afterwards). Every run's
lines, each with an "ab" object (side, run, order, ref, rev, load), go to
--out (default: ab-<UTC time>.jsonl beside the --history file of the
command after --, else in the system's temporary directory; the path is
printed on stderr first); the session ends with 'compare' of the two sides, which can be
repeated with 'katbench compare --ab OUT'.

Exit status: 1 on a significant regression beyond the threshold or a
failed run, 2 on bad input, 0 otherwise.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return fmt.Errorf("give the katbench command to run after --, e.g. -- run embedded --quick")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			co, err := f.options()
			if err != nil {
				return err
			}
			s.Args = args
			if s.Out == "" {
				s.Out = ab.DefaultOut(args, time.Now())
			}
			if err := s.Check(analysis.MinRuns(0.05)); err != nil {
				return asUsage(err)
			}
			ctx, stop := lifecycle.Interruptible(context.Background())
			defer stop()
			logw := cmd.ErrOrStderr()
			fmt.Fprintf(logw, "katbench ab: every run's lines go to %s\n", s.Out)
			sum, err := s.Run(ctx, logw)
			if err != nil { // ab.ErrBadOptions is a usage error
				return err
			}
			fmt.Fprintln(logw, sum.Describe(s.Runs, s.MaxLoad, s.Out))
			old, nw, err := analysis.LoadAB(s.Out)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			err = f.Report(&buf, old, nw, co)
			if _, werr := cmd.OutOrStdout().Write(buf.Bytes()); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
	f.RegisterFlags(cmd.Flags())
	s.RegisterFlags(cmd.Flags())
	rootCmd.AddCommand(cmd)
}
