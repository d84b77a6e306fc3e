package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/scenarios"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List competitors and scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "COMPETITOR\tARGS\tSTORE\tDESCRIPTION")
			for _, f := range competitors.All() {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Name, f.Usage, f.Store, f.Description)
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w, "SCENARIO\tKIND\tTHREADS\tMETRIC\tBETTER\tDESCRIPTION")
			for _, s := range scenarios.Plan(scenarios.DefaultThreads) {
				fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\n", s.Name, s.Kind, s.Threads, s.Metric, s.Metric.Better(), s.Doc)
			}
			listMixes(w)
			return w.Flush()
		},
	})
}
