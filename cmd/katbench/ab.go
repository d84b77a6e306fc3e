package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/ab"
	"github.com/nordisk/katbench/internal/analysis"
)

func init() {
	var (
		oldRef, newRef string
		runs           int
		cooldown       time.Duration
		maxLoad        float64
		loadWait       time.Duration
		out            string
		repo           string
		oldEnv, newEnv []string
		f              compareFlags
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
--out; the session ends with 'compare' of the two sides, which can be
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
			if oldRef == "" || newRef == "" {
				return usagef("--old and --new are both required")
			}
			if need := analysis.MinRuns(0.05); runs < need {
				return usagef("--runs %d: compare needs at least %d runs a side to decide anything", runs, need)
			}
			if cooldown < 0 || loadWait < 0 || maxLoad < 0 {
				return usagef("--cooldown, --load-wait and --max-load must not be negative")
			}
			if err := ab.CheckEnv(append(append([]string(nil), oldEnv...), newEnv...)); err != nil {
				return usagef("--old-env/--new-env: %v", err)
			}
			if out == "" {
				out = "ab-" + time.Now().UTC().Format("20060102T150405Z") + ".jsonl"
			}
			if err := ab.CheckOut(out); err != nil {
				return usagef("--out: %v", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			tmp, err := os.MkdirTemp("", "katbench-ab-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			logw := cmd.ErrOrStderr()
			logf := func(s string) { fmt.Fprintln(logw, s) }
			oldSide, err := ab.Resolve(ctx, oldRef, repo, tmp, logf)
			if err != nil {
				return usagef("--old: %v", err)
			}
			newSide, err := ab.Resolve(ctx, newRef, repo, tmp, logf)
			if err != nil {
				return usagef("--new: %v", err)
			}
			oldSide.Env, newSide.Env = oldEnv, newEnv
			sum, err := ab.ExecuteToFile(ctx, ab.Options{
				Old: oldSide, New: newSide, Runs: runs, Args: args,
				Cooldown: cooldown, MaxLoad: maxLoad, LoadWait: loadWait, Log: logw,
			}, out)
			if err != nil {
				return err
			}
			fmt.Fprintln(logw, sum.Describe(runs, maxLoad, out))
			lines, err := analysis.Load(out)
			if err != nil {
				return err
			}
			old, nw, err := analysis.SplitAB(lines)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			err = f.report(&buf, old, nw, co)
			if _, werr := cmd.OutOrStdout().Write(buf.Bytes()); werr != nil && err == nil {
				err = werr
			}
			return err
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&oldRef, "old", "", "the baseline: a katbench binary or a git revision (built from a clean checkout)")
	fl.StringVar(&newRef, "new", "", "the candidate: a katbench binary or a git revision")
	fl.IntVar(&runs, "runs", 10, "runs per side (each a fresh process); at least 4")
	fl.DurationVar(&cooldown, "cooldown", 2*time.Second, "pause before each run")
	fl.Float64Var(&maxLoad, "max-load", float64(runtime.NumCPU()), "one-minute load average a run waits for (0: no limit)")
	fl.DurationVar(&loadWait, "load-wait", 30*time.Second, "longest wait for the load to drop; a run that starts above it is recorded so")
	fl.StringVar(&out, "out", "", "file for every run's lines (default ab-<UTC time>.jsonl; never overwritten)")
	fl.StringVar(&repo, "repo", ".", "git repository that revisions are built from")
	fl.StringArrayVar(&oldEnv, "old-env", nil, "NAME=VALUE added to the old side's environment (repeatable)")
	fl.StringArrayVar(&newEnv, "new-env", nil, "NAME=VALUE added to the new side's environment (repeatable), e.g. "+envTestDelay+"=rest:40 to inject a slowdown")
	rootCmd.AddCommand(cmd)
}
