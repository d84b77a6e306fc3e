package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/cluster"
)

func init() {
	var c cluster.Command
	var releaseFile, releaseAt string
	clusterCmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run katbench as N workers on a Kubernetes cluster (cluster run)",
	}
	run := &cobra.Command{
		Use:   "run --workers N [flags] -- COMMAND [ARGS...]",
		Short: "Run one katbench command as an Indexed Job of N workers and merge their lines",
		Long: `cluster run creates an Indexed Job of N pods, each running the katbench
COMMAND ARGS (e.g. rest http://catalog:8181 --quick) as worker I of N
(--shards N, the index from JOB_COMPLETION_INDEX) behind a start barrier:
each worker builds its dataset, logs that it is ready and waits; once all N
are ready (within --setup) the command hands every one of them the same
start instant, --start-delay ahead (kubectl exec of the image's own
/katbench writes it to a file in the pod). It watches the pods and fails at once,
with the pod's reason and last log lines, when one fails (a non-zero exit,
OOMKilled, ImagePullBackOff, Unschedulable); it never waits past --timeout.
While they measure it prints their merged progress every 5 s (operations
and errors so far, read from each worker's metrics through the API
server's pod proxy; --metrics-port 0 turns it off). When every worker succeeded it reads their JSONL from the pod logs (no
shared volume), names each line's host after the pod's node (pods on one
node are one host: its cores count once), merges them as merge --cross-host
does, prints the merged lines and deletes the Job — also on failure and
Ctrl-C. kubectl (--kubectl, $KATBENCH_KUBECTL, else on PATH) finds the
cluster as it always does (KUBECONFIG, ~/.kube/config, in-cluster).
--dry-run prints the Job and creates nothing; with no command there to
release a barrier, its workers start at --start-at, --setup after now.`,
		Example: `  katbench cluster run --workers 3 -- rest http://catalog.default.svc:8181 --quick
  katbench cluster run --workers 2 --dry-run -- rest http://catalog:8181 > job.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.Run(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.RegisterFlags(run.Flags(), os.Getenv)
	release := &cobra.Command{
		Use:    "release --file PATH --at TIME",
		Short:  "Write a start instant to a worker's --start-file (cluster run execs it in each pod)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE:   func(*cobra.Command, []string) error { return cluster.Release(releaseFile, releaseAt) },
	}
	release.Flags().StringVar(&releaseFile, "file", "", "the worker's --start-file")
	release.Flags().StringVar(&releaseAt, "at", "", "the start instant (RFC 3339)")
	clusterCmd.AddCommand(run, release)
	rootCmd.AddCommand(clusterCmd)
}
