package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

// parseTargets parses every argument of a multi-target command.
func parseTargets(args []string) []scenarios.TargetSpec {
	specs := make([]scenarios.TargetSpec, len(args))
	for i, a := range args {
		specs[i] = scenarios.ParseTargetSpec(a)
	}
	return specs
}

// runBench is the body of `katbench run`, capacity and every single-target command.
func runBench(cmd *cobra.Command, f *scenarios.Command, given []scenarios.TargetSpec) error {
	return f.Run(cmd.Context(), cmd.Flags(), process(cmd), given)
}

func init() {
	var f scenarios.Command
	runCmd := &cobra.Command{
		Use:   "run TARGET [TARGET...]",
		Short: "Run the scenarios on several competitors side by side",
		Long: `Run the shared scenarios on every TARGET in one process, one after another
per scenario, and print one JSON line per (target, scenario). The table shows
each target's ratio to the first.

A TARGET is a competitor name (see 'katbench list'), optionally with its
endpoint: name=URL or name=URL@WAREHOUSE (e.g. nessie=http://localhost:19120/iceberg@warehouse).`,
		Example: `  katbench run embedded sql --quick
  katbench run embedded rest grpc --quick --format table
  eval "$(containers/nessie_up.sh)"; katbench run rest nessie --quick`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runBench(cmd, &f, parseTargets(args)) },
	}
	f.RegisterFlags(runCmd.Flags(), os.Getenv)
	rootCmd.AddCommand(runCmd)

	// One command per competitor: `katbench embedded`, `katbench nessie URL WAREHOUSE`, …
	for _, fac := range competitors.All() {
		var ff scenarios.Command
		var peer string
		name := fac.Name
		c := &cobra.Command{
			Use:     strings.TrimSpace(name + " " + fac.Usage),
			Short:   "Benchmark " + fac.Description,
			Long:    fac.Long(),
			Example: fac.Example,
			Args:    cobra.MaximumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				if !fac.Storage && cmd.Flags().Changed("warehouse") {
					return usagef("--warehouse is the embedded catalog's warehouse URI and does not apply to %s; "+
						"its server's warehouse is the argument after the URL: katbench %s", name, strings.TrimSpace(name+" "+fac.Usage))
				}
				specs := []scenarios.TargetSpec{{Name: name, Args: args}}
				if peer != "" && peer != name {
					specs = append(specs, scenarios.TargetSpec{Name: peer})
				}
				return runBench(cmd, &ff, specs)
			},
		}
		ff.RegisterFlags(c.Flags(), os.Getenv)
		c.Flags().StringVar(&peer, "peer", fac.Peer, "competitor run beside this one for comparison ('' for none)")
		for _, name := range fac.UnusedFlags() { // hidden from help; they still parse, so old command lines keep working
			_ = c.Flags().MarkHidden(name) // registered above: never an error
		}
		rootCmd.AddCommand(c)
	}
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
}
