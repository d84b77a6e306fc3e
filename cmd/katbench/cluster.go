package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/cluster"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/scenarios"
)

func init() {
	var o cluster.Options
	var dryRun bool
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
			sel, err := o.Check(args)
			if err != nil {
				return err
			}
			name := "katbench-" + strconv.FormatInt(time.Now().UnixNano()%1e10, 36)
			if dryRun {
				start := time.Now().Add(o.Setup).UTC().Truncate(time.Second).Add(time.Second)
				b, _ := json.MarshalIndent(cluster.Job(o, name, sel, start, args), "", "  ")
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			ctx, stop := lifecycle.Interruptible(cmd.Context())
			defer stop()
			return cluster.Run(ctx, o, name, cluster.Job(o, name, sel, time.Time{}, args), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := run.Flags()
	o.RegisterFlags(f, os.Getenv)
	f.BoolVar(&dryRun, "dry-run", false, "print the Job (JSON, kubectl apply -f takes it) and create nothing")
	release := &cobra.Command{
		Use:    "release --file PATH --at TIME",
		Short:  "Write a start instant to a worker's --start-file (cluster run execs it in each pod)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := time.Parse(time.RFC3339Nano, releaseAt)
			if err != nil || releaseFile == "" {
				return usagef("--file %q --at %q: want a path and an RFC 3339 time", releaseFile, releaseAt)
			}
			return scenarios.WriteStartFile(releaseFile, at)
		},
	}
	release.Flags().StringVar(&releaseFile, "file", "", "the worker's --start-file")
	release.Flags().StringVar(&releaseAt, "at", "", "the start instant (RFC 3339)")
	clusterCmd.AddCommand(run, release)
	rootCmd.AddCommand(clusterCmd)
}

var releaseFile, releaseAt string
