package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/commitcheck"
)

func init() {
	var f commitcheck.Command
	cmd := &cobra.Command{
		Use:   "verify COMPETITOR...",
		Short: "Check that a catalog keeps every acknowledged commit, exactly once, on a linear history",
		Long: `verify drives W writers committing to K tables through each competitor with
iceberg-go's own commit path (a transaction appending one data file; its
snapshot summary carries a unique katbench.marker) and records every attempt:
acknowledged, refused (a conflict left after every retry) or indeterminate (a
timeout, a 5xx, a lost connection). Then it reads every table's history back
through the catalog — snapshots, parents, sequence numbers, snapshot log,
metadata log, refs, each metadata-log file and manifest list — and reports,
with evidence: lost (acknowledged, absent), duplicated (a marker twice),
phantom (refused, present), forked (a snapshot whose parent is not the
previous head, or a sequence number that does not increase), unreadable.
Indeterminate commits present or absent are counted, never an error.

One line per cell (competitor × writers × tables) goes to --out (or stdout),
with commit p50/p99 (retries included) and the costs of contention:
conflicts_per_commit, retries_per_commit, failed_after_retries_pct,
round_trips_per_commit. Exit 1 when any anomaly was found (the lines are
still written); docs/verify.md explains every check.`,
		Example: `  katbench verify embedded rest --writers 1,16,64 --tables 1
  katbench verify nessie --writers 16 --commits 500 --out verify.jsonl
  katbench verify embedded --no-markers --writers 16   # the markers' own cost
  katbench verify rest --writers 16 --duration 60s --kill-every 2s   # kill -9 our server meanwhile
  katbench verify embedded --writers 16 --duration 30s --kill-every 1s   # kill -9 the writers' process on the catalog's files
  katbench verify embedded rest grpc --writers 64 --commit-retries 4,8,16,32,64 --commit-backoff 10ms:1s`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.Run(cmd.Context(), process(cmd), args, cmd.Flags().Changed)
		},
	}
	f.RegisterFlags(cmd.Flags())
	rootCmd.AddCommand(cmd)
	rootCmd.AddCommand(&cobra.Command{
		Use:    "verify-writers SPEC",
		Short:  "Run the writers of a verify cell on a catalog directory, reporting each attempt on stdout (verify --kill-every runs and kills it)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := commitcheck.ParseChildSpec(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			return commitcheck.RunChild(cmd.Context(), spec, os.Stdout)
		},
	})
}
