package cluster

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/analysis"
)

// liveProgressEvery is how often cluster run prints the workers' merged
// progress while they measure.
const liveProgressEvery = 5 * time.Second

// workerCounts are one worker's measured operations and errors, summed over
// its series, as its --metrics-addr endpoint last served them.
type workerCounts struct{ ops, errs int64 }

// parseWorkerMetrics sums katbench_operations_total and
// katbench_errors_total over every series of one worker's Prometheus text
// (scenarios.LiveMetrics writes it). A sample that does not parse is an
// error: a count that cannot be read is not reported as zero.
func parseWorkerMetrics(text []byte) (workerCounts, error) {
	var c workerCounts
	sc := bufio.NewScanner(bytes.NewReader(text))
	seen := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var dst *int64
		switch {
		case strings.HasPrefix(line, "katbench_operations_total{"), strings.HasPrefix(line, "katbench_operations_total "):
			dst = &c.ops
		case strings.HasPrefix(line, "katbench_errors_total{"), strings.HasPrefix(line, "katbench_errors_total "):
			dst = &c.errs
		default:
			continue
		}
		// The value follows the last space (label values may hold spaces).
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil || v < 0 {
			return workerCounts{}, fmt.Errorf("metrics sample %q: not a count", line)
		}
		*dst += int64(v)
		seen = true
	}
	if err := sc.Err(); err != nil {
		return workerCounts{}, err
	}
	if !seen {
		// A worker still building its dataset has no series yet.
		return workerCounts{}, nil
	}
	return c, nil
}

// liveProgress merges the workers' live counts for the progress line. A
// worker that has finished no longer serves its metrics; its last counts
// stay in the sum, so the merged total never goes back.
type liveProgress struct {
	last      map[string]workerCounts
	unreached map[string]string // pod → why its last scrape failed
	prevOps   int64
	prevAt    time.Time
	lastPrint time.Time
}

func newLiveProgress() *liveProgress {
	return &liveProgress{last: map[string]workerCounts{}, unreached: map[string]string{}}
}

// see records one scrape of a pod: its counts, or why it failed.
func (p *liveProgress) see(pod string, text []byte, err error) {
	if err == nil {
		var c workerCounts
		if c, err = parseWorkerMetrics(text); err == nil {
			p.last[pod] = c
			delete(p.unreached, pod)
			return
		}
	}
	p.unreached[pod] = err.Error()
}

// line is the progress line at now for n workers: merged operations and
// errors so far, and the rate since the previous line.
func (p *liveProgress) line(now time.Time, n int) string {
	var sum workerCounts
	for _, c := range p.last {
		sum.ops += c.ops
		sum.errs += c.errs
	}
	s := fmt.Sprintf("measured so far, %d of %d workers: %s ops, %s errors", len(p.last), n, analysis.Thousands(sum.ops), analysis.Thousands(sum.errs))
	if !p.prevAt.IsZero() && now.After(p.prevAt) {
		dt := now.Sub(p.prevAt).Seconds()
		s += fmt.Sprintf("; %s ops/s over the last %.1f s", analysis.Thousands(int64(float64(sum.ops-p.prevOps)/dt+0.5)), dt)
	}
	p.prevOps, p.prevAt = sum.ops, now
	if len(p.unreached) > 0 {
		pods := make([]string, 0, len(p.unreached))
		for pod := range p.unreached {
			pods = append(pods, pod)
		}
		sort.Strings(pods)
		s += fmt.Sprintf(" (metrics of %s not reachable: %s)", strings.Join(pods, ", "), p.unreached[pods[0]])
	}
	return s
}

// report scrapes the running workers through the API server's pod proxy
// (no port-forward, no Service) and prints the merged progress, at most
// every liveProgressEvery. Scrape failures are shown, never fatal: the
// result lines, read from the logs at the end, are the measurement.
func (p *liveProgress) report(ctx context.Context, o Options, pods []podView, w io.Writer, name string) {
	if o.MetricsPort <= 0 || time.Since(p.lastPrint) < liveProgressEvery {
		return
	}
	for _, pod := range pods {
		if pod.Status.Phase != "Running" {
			continue
		}
		path := fmt.Sprintf("/api/v1/namespaces/%s/pods/%s:%d/proxy/metrics", o.Namespace, pod.Metadata.Name, o.MetricsPort)
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		text, err := o.kubectl(sctx, nil, "get", "--raw", path)
		cancel()
		p.see(pod.Metadata.Name, text, err)
	}
	p.lastPrint = time.Now()
	fmt.Fprintf(w, "katbench: job %s: %s\n", name, p.line(p.lastPrint, o.Workers))
}
