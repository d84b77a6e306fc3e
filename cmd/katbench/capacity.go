package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/scenarios"
)

func init() {
	var f scenarios.Command
	var cf scenarios.CapacitySettings
	cmd := &cobra.Command{
		Use:   "capacity TARGET [TARGET...]",
		Short: "Find the highest rate of a mix each target sustains within a latency objective",
		Long: `Run a mix (--mix) open-loop on every TARGET at rising rates: geometric steps
(--start-rate, ×--factor) while every step meets the objective (--slo) and
keeps its rate, then bisection between the last good and the first bad rate.
Each step lasts at least --step-duration and --step-ops operations. The
targets take turns step by step, so drift hits them alike.

Prints one capacity.<mix> line per target: max_rate (the highest rate that met
every objective and was kept), every step (rate, achieved rate, the
objectives' percentiles, errors, whether its p99 settled, its histogram), and
the histogram of the step at max_rate. A target whose first step fails makes
a line saying so and the run exit 1.`,
		Example: `  katbench capacity embedded rest --quick --mix read-heavy --slo 'p99<=20ms'
  katbench capacity rest grpc --mix write-heavy --slo 'p99<=200ms,commit_table:p99.9<=500ms'
  katbench capacity embedded --mix 'load_table=90,commit_table=10' --keys zipf:1.2 --slo 'p99<=5ms,errors<=0.001'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.Mix.Capacity = &cf
			return runBench(cmd, &f, parseTargets(args))
		},
	}
	f.RegisterFlags(cmd.Flags(), os.Getenv)
	cf.RegisterFlags(cmd.Flags())
	// The search chooses the rates and runs the mix, not the scenarios:
	// these flags of a run do not shape it (they are refused), so its
	// help leaves them out.
	for _, name := range scenarios.CapacityUnused {
		_ = cmd.Flags().MarkHidden(name) // registered above: never an error
	}
	rootCmd.AddCommand(cmd)
}
