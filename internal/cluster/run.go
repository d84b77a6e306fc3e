package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
)

// Run creates job (made by Job, named name), releases its workers together
// once all are ready, watches them, and when every one succeeded merges
// their lines to stdout (and --output, --history files); progress and
// failures go to stderr. The Job is deleted on every return, ctx's
// cancellation included. o must have passed Check.
func Run(ctx context.Context, o Options, name string, job map[string]any, stdout, stderr io.Writer) (err error) {
	manifest, _ := json.Marshal(job)
	if _, err := o.kubectl(ctx, manifest, "create", "-f", "-"); err != nil {
		return err
	}
	created := time.Now()
	fmt.Fprintf(stderr, "katbench: job %s/%s: %d workers; they start together once all are ready (--setup %v)\n", o.Namespace, name, o.Workers, o.Setup)
	defer func() {
		// Deleted on success, failure and Ctrl-C (ctx may be cancelled).
		dctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if _, derr := o.kubectl(dctx, nil, "delete", "job", name, "--cascade=foreground", "--wait=true", "--timeout=80s", "--ignore-not-found"); derr != nil {
			err = errors.Join(err, fmt.Errorf("deleting job %s: %w", name, derr))
		}
	}()
	deadline := time.Now().Add(o.Timeout)
	var pods []podView
	lastPhase := ""
	getErrs := 0
	bar := newStartBarrier(o.Workers)
	live := newLiveProgress()
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("job %s not done after --timeout %v (%s)", name, o.Timeout, lastPhase)
		}
		out, err := o.kubectl(ctx, nil, "get", "jobs,pods", "-l", "katbench/run="+name, "-o", "json")
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
				logs, _ := o.kubectl(ctx, nil, "logs", p.Metadata.Name, "--tail=20")
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
				at := time.Now().Add(o.StartDelay).UTC()
				fmt.Fprintf(stderr, "katbench: job %s: all %d workers ready after %.1f s; starting at %s\n", name, o.Workers, time.Since(created).Seconds(), at.Format(time.RFC3339Nano))
				last, err := bar.release(ctx, pods, at, func(ctx context.Context, pod string, at time.Time) error {
					_, err := o.kubectl(ctx, nil, "exec", pod, "-c", "katbench", "--", "/katbench", "cluster", "release", "--file", PodStartFile, "--at", at.Format(time.RFC3339Nano))
					return err
				})
				if err != nil {
					return err
				}
				if last.After(at) {
					fmt.Fprintf(stderr, "katbench: warning: the last worker got the start instant %.1f s after it; raise --start-delay (now %v)\n", last.Sub(at).Seconds(), o.StartDelay)
				}
			} else if time.Since(created) > o.Setup {
				return fmt.Errorf("job %s: not every worker finished its setup within --setup %v; not ready: %s", name, o.Setup, strings.Join(waiting, ", "))
			}
		}
		if phase := phaseSummary(counts); phase != lastPhase {
			fmt.Fprintf(stderr, "katbench: job %s: %s\n", name, phase)
			lastPhase = phase
		}
		if done == o.Workers && len(pods) == o.Workers {
			break
		}
		if !bar.at.IsZero() {
			live.report(ctx, o, pods, stderr, name)
		}
		pollWait(ctx)
	}
	var all bytes.Buffer
	for _, p := range pods {
		logs, err := o.kubectl(ctx, nil, "logs", p.Metadata.Name)
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
	if o.WorkerLines != "" {
		if err := results.WriteFileAtomic(o.WorkerLines, all.Bytes()); err != nil {
			return err
		}
	}
	lines, err := analysis.Read(bytes.NewReader(all.Bytes()), "workers")
	if err != nil {
		return err
	}
	ms, err := analysis.Merge(lines, analysis.MergeOptions{CrossHost: true, Force: o.Force})
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
	if o.Out != "" {
		if err := results.WriteFileAtomic(o.Out, buf.Bytes()); err != nil {
			return err
		}
	}
	if o.History != "" {
		f, err := os.OpenFile(o.History, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, werr := f.Write(buf.Bytes())
		if err := errors.Join(werr, f.Close()); err != nil {
			return fmt.Errorf("append to %s: %w", o.History, err)
		}
	}
	if output.ResolveFormat(o.Format, stdout) != "table" {
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

func pollWait(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
}
