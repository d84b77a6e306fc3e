package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// clusterOptions are the flags of `katbench cluster run`.
type clusterOptions struct {
	workers      int
	image        string
	namespace    string
	kubectl      string
	nodeSelector []string
	cpu, memory  string
	setup        time.Duration
	startDelay   time.Duration
	metricsPort  int
	timeout      time.Duration
	dryRun       bool
	force        bool
	format       string
	out          string
	history      string
	workerLines  string
}

func init() {
	var o clusterOptions
	cluster := &cobra.Command{
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
			if o.workers < 1 {
				return usagef("--workers %d: want at least 1", o.workers)
			}
			if o.metricsPort < 0 || o.metricsPort > 65535 {
				return usagef("--metrics-port %d: want 0 (none) or a port", o.metricsPort)
			}
			if o.setup <= 0 || o.timeout <= o.setup {
				return usagef("--setup %v, --timeout %v: want 0 < setup < timeout", o.setup, o.timeout)
			}
			if err := output.CheckFormat(o.format); err != nil {
				return err
			}
			sel, err := parseSelector(o.nodeSelector)
			if err != nil {
				return asUsage(err)
			}
			for _, a := range args {
				if a == "--shards" || a == "--shard" || a == "--start-at" || strings.HasPrefix(a, "--shard=") ||
					strings.HasPrefix(a, "--shards=") || strings.HasPrefix(a, "--start-at=") || a == "--start-file" || strings.HasPrefix(a, "--start-file=") || a == "--metrics-addr" || strings.HasPrefix(a, "--metrics-addr=") || a == "--format" || strings.HasPrefix(a, "--format=") {
					return usagef("%s: cluster run sets --shards, --start-file, --metrics-addr (--metrics-port) and --format itself", a)
				}
			}
			name := "katbench-" + strconv.FormatInt(time.Now().UnixNano()%1e10, 36)
			if o.dryRun {
				start := time.Now().Add(o.setup).UTC().Truncate(time.Second).Add(time.Second)
				b, _ := json.MarshalIndent(clusterJob(o, name, sel, start, args), "", "  ")
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return clusterRun(ctx, cmd, o, name, clusterJob(o, name, sel, time.Time{}, args))
		},
	}
	f := run.Flags()
	f.IntVar(&o.workers, "workers", 0, "number of worker pods N (required)")
	f.StringVar(&o.image, "image", envOr("KATBENCH_K8S_IMAGE", "katbench:dev"), "the katbench image the pods run (make image; env KATBENCH_K8S_IMAGE)")
	f.StringVar(&o.namespace, "namespace", "default", "the Kubernetes namespace of the Job")
	f.StringVar(&o.kubectl, "kubectl", envOr("KATBENCH_KUBECTL", "kubectl"), "the kubectl to run (env KATBENCH_KUBECTL)")
	f.StringSliceVar(&o.nodeSelector, "node-selector", nil, "schedule the pods on nodes with these labels (k=v, repeatable or comma-separated)")
	f.StringVar(&o.cpu, "cpu", "250m", "CPU request of each worker (no limit)")
	f.StringVar(&o.memory, "memory", "256Mi", "memory request of each worker")
	f.DurationVar(&o.setup, "setup", 10*time.Minute, "longest time from creating the Job until every worker is ready (scheduling, image start, dataset setup); with --dry-run, the time from now to the Job's --start-at")
	f.DurationVar(&o.startDelay, "start-delay", 5*time.Second, "once every worker is ready, start this far ahead: handing out the start instant must fit in it")
	f.IntVar(&o.metricsPort, "metrics-port", 9464, "each worker serves Prometheus metrics on this port (--metrics-addr), and its pod carries the prometheus.io/scrape annotations; 0: none")
	f.DurationVar(&o.timeout, "timeout", 30*time.Minute, "give up (and delete the Job) after this long")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the Job (JSON, kubectl apply -f takes it) and create nothing")
	f.BoolVar(&o.force, "force", false, "merge cells whose workers' windows overlap less than 90 % (as merge --force; the line still says its skew)")
	f.StringVar(&o.format, "format", "auto", "stdout format of the merged lines: auto (a table on a terminal, JSONL otherwise), jsonl or table")
	f.StringVarP(&o.out, "output", "o", "", "also write the merged lines to this file")
	f.StringVar(&o.history, "history", "", "also append the merged lines to this file")
	f.StringVar(&o.workerLines, "worker-lines", "", "also write every worker's own lines (host = its node) to this file")
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
	cluster.AddCommand(run, release)
	rootCmd.AddCommand(cluster)
}

var releaseFile, releaseAt string

// podStartFile is where a worker pod waits for its start instant (the
// image has an empty, writable /tmp).
const podStartFile = "/tmp/katbench-start"

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func parseSelector(kvs []string) (map[string]string, error) {
	sel := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--node-selector %q: want key=value", kv)
		}
		sel[k] = v
	}
	return sel, nil
}

// clusterJob is the Indexed Job: no shell (the image has none), no volume
// (the lines come back through the pod logs), small requests. Its workers
// wait at the start barrier (podStartFile), or, given a start instant (a
// dry run), start then.
func clusterJob(o clusterOptions, name string, sel map[string]string, start time.Time, args []string) map[string]any {
	n := strconv.Itoa(o.workers)
	wargs := append(append([]string{}, args...), "--shards", n)
	if start.IsZero() {
		wargs = append(wargs, "--start-file", podStartFile)
	} else {
		wargs = append(wargs, "--start-at", start.Format(time.RFC3339))
	}
	wargs = append(wargs, "--format", "jsonl")
	labels := map[string]string{"app.kubernetes.io/name": "katbench", "katbench/run": name}
	podMeta := map[string]any{"labels": labels}
	container := map[string]any{
		"name":            "katbench",
		"image":           o.image,
		"imagePullPolicy": "IfNotPresent",
		"resources":       map[string]any{"requests": map[string]string{"cpu": o.cpu, "memory": o.memory}},
	}
	if o.metricsPort > 0 {
		port := strconv.Itoa(o.metricsPort)
		wargs = append(wargs, "--metrics-addr", ":"+port)
		podMeta["annotations"] = map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics"}
		container["ports"] = []any{map[string]any{"name": "metrics", "containerPort": o.metricsPort}}
	}
	container["args"] = wargs
	pod := map[string]any{
		"restartPolicy":                "Never",
		"automountServiceAccountToken": false,
		"enableServiceLinks":           false,
		"securityContext":              map[string]any{"runAsNonRoot": true, "runAsUser": 65532, "runAsGroup": 65532},
		"containers":                   []any{container},
	}
	if len(sel) > 0 {
		pod["nodeSelector"] = sel
	}
	return map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   map[string]any{"name": name, "namespace": o.namespace, "labels": labels},
		"spec": map[string]any{
			"completionMode":          "Indexed",
			"completions":             o.workers,
			"parallelism":             o.workers,
			"backoffLimit":            0,
			"activeDeadlineSeconds":   int(o.timeout.Seconds()),
			"ttlSecondsAfterFinished": 3600,
			"template": map[string]any{
				"metadata": podMeta,
				"spec":     pod,
			},
		},
	}
}

// kubectl runs o.kubectl with args (and stdin), returning its stdout; its
// stderr is part of the error.
func kubectl(ctx context.Context, o clusterOptions, stdin []byte, args ...string) ([]byte, error) {
	c := exec.CommandContext(ctx, o.kubectl, append([]string{"-n", o.namespace}, args...)...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("kubectl %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// podView is what cluster run reads of a pod.
type podView struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		Reason     string `json:"reason"`
		Message    string `json:"message"`
		Conditions []struct {
			Type, Status, Reason, Message string
		} `json:"conditions"`
		ContainerStatuses []struct {
			State struct {
				Waiting    *struct{ Reason, Message string } `json:"waiting"`
				Terminated *struct {
					Reason, Message string
					ExitCode        int `json:"exitCode"`
				} `json:"terminated"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}

// fatalWaits are the waiting reasons that never resolve by waiting.
var fatalWaits = map[string]bool{"ImagePullBackOff": true, "ErrImagePull": true, "ErrImageNeverPull": true,
	"InvalidImageName": true, "CreateContainerConfigError": true, "CreateContainerError": true, "CrashLoopBackOff": true}

// podProblem says why a pod can never succeed ("" while it still may).
func podProblem(p podView) string {
	s := p.Status
	for _, c := range s.Conditions {
		if c.Type == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" {
			return "Unschedulable: " + c.Message
		}
	}
	for _, cs := range s.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && fatalWaits[w.Reason] {
			return strings.TrimSpace(w.Reason + ": " + w.Message)
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return strings.TrimSpace(fmt.Sprintf("%s (exit %d) %s", t.Reason, t.ExitCode, t.Message))
		}
	}
	if s.Phase == "Failed" {
		return strings.TrimSpace("Failed: " + s.Reason + " " + s.Message)
	}
	return ""
}

func clusterRun(ctx context.Context, cmd *cobra.Command, o clusterOptions, name string, job map[string]any) (err error) {
	stderr := cmd.ErrOrStderr()
	manifest, _ := json.Marshal(job)
	if _, err := kubectl(ctx, o, manifest, "create", "-f", "-"); err != nil {
		return err
	}
	created := time.Now()
	fmt.Fprintf(stderr, "katbench: job %s/%s: %d workers; they start together once all are ready (--setup %v)\n", o.namespace, name, o.workers, o.setup)
	defer func() {
		// Deleted on success, failure and Ctrl-C (ctx may be cancelled).
		dctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if _, derr := kubectl(dctx, o, nil, "delete", "job", name, "--cascade=foreground", "--wait=true", "--timeout=80s", "--ignore-not-found"); derr != nil {
			err = errors.Join(err, fmt.Errorf("deleting job %s: %w", name, derr))
		}
	}()
	deadline := time.Now().Add(o.timeout)
	var pods []podView
	lastPhase := ""
	getErrs := 0
	bar := newStartBarrier(o.workers)
	live := newLiveProgress()
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("job %s not done after --timeout %v (%s)", name, o.timeout, lastPhase)
		}
		out, err := kubectl(ctx, o, nil, "get", "jobs,pods", "-l", "katbench/run="+name, "-o", "json")
		jobFailed := ""
		if err == nil {
			pods, jobFailed, err = jobPods(out)
		}
		if err != nil {
			// The API server may hiccup; a few failed polls in a row end the wait.
			if getErrs++; getErrs >= 5 || ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(stderr, "katbench: job %s: %v (retrying)\n", name, err)
			pollWait(ctx)
			continue
		}
		getErrs = 0
		done := 0
		counts := map[string]int{}
		for _, p := range pods {
			if why := podProblem(p); why != "" {
				logs, _ := kubectl(ctx, o, nil, "logs", p.Metadata.Name, "--tail=20")
				return fmt.Errorf("worker pod %s failed: %s\n%s", p.Metadata.Name, why, results.RedactText(strings.TrimSpace(string(logs))))
			}
			counts[p.Status.Phase]++
			if p.Status.Phase == "Succeeded" {
				done++
			}
		}
		if jobFailed != "" {
			return fmt.Errorf("job %s failed: %s", name, jobFailed)
		}
		if bar.at.IsZero() {
			if err := bar.poll(ctx, o, pods); err != nil {
				return err
			}
			if waiting := bar.waiting(pods); len(waiting) == 0 {
				at := time.Now().Add(o.startDelay).UTC()
				fmt.Fprintf(stderr, "katbench: job %s: all %d workers ready after %.1f s; starting at %s\n", name, o.workers, time.Since(created).Seconds(), at.Format(time.RFC3339Nano))
				last, err := bar.release(ctx, pods, at, func(ctx context.Context, pod string, at time.Time) error {
					_, err := kubectl(ctx, o, nil, "exec", pod, "-c", "katbench", "--", "/katbench", "cluster", "release", "--file", podStartFile, "--at", at.Format(time.RFC3339Nano))
					return err
				})
				if err != nil {
					return err
				}
				if last.After(at) {
					fmt.Fprintf(stderr, "katbench: warning: the last worker got the start instant %.1f s after it; raise --start-delay (now %v)\n", last.Sub(at).Seconds(), o.startDelay)
				}
			} else if time.Since(created) > o.setup {
				return fmt.Errorf("job %s: not every worker finished its setup within --setup %v; not ready: %s", name, o.setup, strings.Join(waiting, ", "))
			}
		}
		if phase := phaseSummary(counts); phase != lastPhase {
			fmt.Fprintf(stderr, "katbench: job %s: %s\n", name, phase)
			lastPhase = phase
		}
		if done == o.workers && len(pods) == o.workers {
			break
		}
		if !bar.at.IsZero() {
			live.report(ctx, o, pods, stderr, name)
		}
		pollWait(ctx)
	}
	var all bytes.Buffer
	for _, p := range pods {
		logs, err := kubectl(ctx, o, nil, "logs", p.Metadata.Name)
		if err != nil {
			return err
		}
		n, err := workerLines(&all, logs, p.Spec.NodeName)
		if err != nil {
			return fmt.Errorf("worker pod %s: %w", p.Metadata.Name, err)
		}
		if n == 0 {
			return fmt.Errorf("worker pod %s succeeded but wrote no result line:\n%s", p.Metadata.Name, results.RedactText(lastLines(logs, 20)))
		}
	}
	if o.workerLines != "" {
		if err := results.WriteFileAtomic(o.workerLines, all.Bytes()); err != nil {
			return err
		}
	}
	lines, err := analysis.Read(bytes.NewReader(all.Bytes()), "workers")
	if err != nil {
		return err
	}
	ms, err := analysis.Merge(lines, analysis.MergeOptions{CrossHost: true, Force: o.force})
	if errors.Is(err, analysis.ErrSkewedWindows) {
		return fmt.Errorf("%w (only the first scenario starts at the barrier's instant; later ones drift apart by the workers' finishing times: run one scenario per command)", err)
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, m := range ms {
		buf.Write(m.JSON)
		buf.WriteByte('\n')
	}
	if o.out != "" {
		if err := results.WriteFileAtomic(o.out, buf.Bytes()); err != nil {
			return err
		}
	}
	if o.history != "" {
		f, err := os.OpenFile(o.history, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, werr := f.Write(buf.Bytes())
		if err := errors.Join(werr, f.Close()); err != nil {
			return fmt.Errorf("append to %s: %w", o.history, err)
		}
	}
	stdout := cmd.OutOrStdout()
	if output.ResolveFormat(o.format, stdout) != "table" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	recs := make([]results.Record, len(ms))
	for i, m := range ms {
		ls, err := analysis.Read(bytes.NewReader(m.JSON), "merged")
		if err != nil || len(ls) != 1 {
			return fmt.Errorf("re-read a merged line: %v", err)
		}
		recs[i] = ls[0].Record
	}
	return results.WriteTableWidth(stdout, recs, output.TerminalWidth(stdout))
}

// startBarrier holds the workers back until all are ready: a worker is
// ready once its log holds scenarios.ReadyMark (its setup is done and it
// waits at its --start-file); then every worker gets the one start instant.
type startBarrier struct {
	n     int
	ready map[string]bool
	at    time.Time // the instant handed out; zero until then
}

func newStartBarrier(n int) *startBarrier {
	return &startBarrier{n: n, ready: map[string]bool{}}
}

// see records a worker's log so far.
func (b *startBarrier) see(pod string, logs []byte) {
	if bytes.Contains(logs, []byte(scenarios.ReadyMark)) {
		b.ready[pod] = true
	}
}

// poll reads the logs of the running workers not yet ready. A worker that
// ended before the barrier released it is an error.
func (b *startBarrier) poll(ctx context.Context, o clusterOptions, pods []podView) error {
	for _, p := range pods {
		name := p.Metadata.Name
		if p.Status.Phase == "Succeeded" {
			return fmt.Errorf("worker pod %s exited before the start instant was handed out", name)
		}
		if p.Status.Phase != "Running" || b.ready[name] {
			continue
		}
		if logs, err := kubectl(ctx, o, nil, "logs", name); err == nil {
			b.see(name, logs)
		}
	}
	return nil
}

// waiting names the workers not ready yet (and the pods still to come).
func (b *startBarrier) waiting(pods []podView) []string {
	var w []string
	for _, p := range pods {
		if !b.ready[p.Metadata.Name] {
			w = append(w, fmt.Sprintf("%s (%s)", p.Metadata.Name, p.Status.Phase))
		}
	}
	if len(pods) < b.n {
		w = append(w, fmt.Sprintf("%d pods not created yet", b.n-len(pods)))
	}
	return w
}

// release hands every worker the start instant at, in parallel, and
// returns when the last got it. It refuses while any worker is not ready.
func (b *startBarrier) release(ctx context.Context, pods []podView, at time.Time, signal func(ctx context.Context, pod string, at time.Time) error) (time.Time, error) {
	if w := b.waiting(pods); len(w) > 0 {
		return time.Time{}, fmt.Errorf("start barrier: not ready: %s", strings.Join(w, ", "))
	}
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, p := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := signal(ctx, p.Metadata.Name, at); err != nil {
				errs[i] = fmt.Errorf("handing the start instant to worker pod %s: %w", p.Metadata.Name, err)
			}
		}()
	}
	wg.Wait()
	b.at = at
	return time.Now(), errors.Join(errs...)
}

func pollWait(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
}

// jobPods reads `kubectl get jobs,pods -o json`: the pods, and why the Job
// itself failed ("" while it has not: a deadline, a deleted pod).
func jobPods(out []byte) (pods []podView, failed string, err error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, "", fmt.Errorf("kubectl get: %w", err)
	}
	for _, raw := range list.Items {
		var kind struct {
			Kind   string
			Status struct {
				Conditions []struct{ Type, Status, Reason, Message string }
			}
		}
		if err := json.Unmarshal(raw, &kind); err != nil {
			return nil, "", fmt.Errorf("kubectl get: %w", err)
		}
		switch kind.Kind {
		case "Job":
			for _, c := range kind.Status.Conditions {
				if c.Type == "Failed" && c.Status == "True" {
					failed = strings.TrimSpace(c.Reason + ": " + c.Message)
				}
			}
		case "Pod":
			var p podView
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, "", fmt.Errorf("kubectl get: %w", err)
			}
			pods = append(pods, p)
		}
	}
	return pods, failed, nil
}

func phaseSummary(counts map[string]int) string {
	var ks []string
	for k := range counts {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if len(parts) == 0 {
		return "no pods yet"
	}
	return strings.Join(parts, ", ")
}

// workerLines copies the result lines of a worker's log (stdout and stderr
// interleaved: the JSON objects are the lines) to w, with host.hostname set
// to the pod's node, and returns how many it copied.
func workerLines(w io.Writer, logs []byte, node string) (int, error) {
	sc := bufio.NewScanner(bytes.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m["schema"] == nil {
			continue
		}
		if node != "" && m["host"] != nil {
			var h map[string]json.RawMessage
			if err := json.Unmarshal(m["host"], &h); err != nil {
				return n, fmt.Errorf("host of a result line: %w", err)
			}
			h["hostname"], _ = json.Marshal(node)
			m["host"], _ = json.Marshal(h)
		}
		out, err := json.Marshal(m)
		if err != nil {
			return n, err
		}
		w.Write(out)
		w.Write([]byte{'\n'})
		n++
	}
	return n, sc.Err()
}

func lastLines(b []byte, n int) string {
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
