package main

import (
	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/listing"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List competitors and scenarios",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return listing.WriteList(cmd.OutOrStdout()) },
	})
}
