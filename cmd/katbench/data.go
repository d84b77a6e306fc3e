package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/scenarios/dataplane"
)

var dataOpts dataplane.Command

var dataCmd = &cobra.Command{
	Use:   "data [TARGET...]",
	Short: "Benchmark the data plane: Arrow → Parquet → S3 → Iceberg commit, and the scan back",
	Long: `data appends a deterministic synthetic events table (int64 ids, timestamps,
low- and high-cardinality strings, doubles, a nullable column) as Arrow record
batches to an Iceberg table of each TARGET (competitors as in 'katbench run';
default embedded), through iceberg-go: Parquet files PUT to the warehouse,
manifests, a catalog commit. It then scans the table back to Arrow and
compares a checksum of every column with what was written (a mismatch is a
failed operation and makes the command exit 1), and times small appends.

Scenarios (katbench list: data.*), one JSON line per (target, transport):
  data.append.<rows>   one append of --rows rows per round; rows/s and Parquet
                       MiB/s in measures, histogram = the commit phase
  data.scan            one full scan per round, checksum verified
  data.commit.latency  small appends (one small file each), end to end
  data.overwrite       whole-table overwrites, checksum verified (only when
                       named by --scenario)
  data.raw             on an s3:// warehouse, raw S3 PUT and GET at the mean
                       Parquet file size (s3.put, s3.get lines; --raw)

Transports (--transports) are interleaved round by round. With no
--s3-endpoint (or KATBENCH_S3_ENDPOINT) the warehouse lives on an in-process
control S3 store, so the command needs no server; a file:// --warehouse
measures the local disk instead of S3.`,
	Example: `  katbench data --quick
  katbench data embedded rest --quick --format table
  eval "$(containers/versitygw_up.sh)"; katbench data embedded --s3-endpoint "$KATBENCH_S3_ENDPOINT" --warehouse s3://katbench/data`,
	RunE: func(cmd *cobra.Command, args []string) error {
		return dataOpts.Run(cmd.Context(), process(cmd), args, cmd.Flags().Changed("s3-endpoint"))
	},
}

func init() {
	dataOpts.RegisterFlags(dataCmd.Flags(), os.Getenv)
	rootCmd.AddCommand(dataCmd)
}
