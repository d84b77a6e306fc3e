package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/nordisk/katbench/internal/analysis"
)

// serveREST starts `katbench serve rest` on a free port and returns its URL.
func serveREST(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "rest", "--addr", "127.0.0.1:0", "--durability", "none")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "serving Iceberg REST at "); ok {
				urls <- strings.Fields(rest)[0]
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("katbench serve rest did not start")
	}
	return ""
}

// TestShardedWorkersMerge runs N worker processes of one distributed run
// against one `katbench serve rest`, each on its own shard and all starting
// at one --start-at, then merges their lines: the merged ops are the sum
// and the percentiles those of the summed histograms.
func TestShardedWorkersMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and three worker processes")
	}
	const n = 3
	dir := t.TempDir()
	url := serveREST(t)
	startAt := time.Now().Add(15 * time.Second).UTC().Format(time.RFC3339Nano)
	files := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		files[i] = filepath.Join(dir, fmt.Sprintf("worker%d.jsonl", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, errOut, code := katbench(t, dir, "rest", url, "--quick", "--tables", "60", "--shard", fmt.Sprintf("%d/%d", i, n),
				"--start-at", startAt, "--scenario", "table_exists.latency,load_table.throughput.t2",
				"--threads", "2", "--duration", "700ms", "--warmup", "100ms", "--server-warmup", "0", "--history", "", "--format", "jsonl")
			if code != 0 {
				errs[i] = fmt.Sprintf("worker %d exit %d: %s", i, code, errOut)
			}
			os.WriteFile(files[i], []byte(out), 0o644)
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	var workers [][]analysis.Line
	for i, f := range files {
		ls, err := analysis.Load(f)
		if err != nil || len(ls) != 2 {
			t.Fatalf("worker %d: %d lines, %v", i, len(ls), err)
		}
		for _, l := range ls {
			if l.Params["shard"] != fmt.Sprintf("%d/%d", i, n) || l.Params["tables"] != float64(20) || l.Errors != 0 {
				t.Fatalf("worker %d line %s: shard %v tables %v errors %d", i, l.Scenario, l.Params["shard"], l.Params["tables"], l.Errors)
			}
		}
		workers = append(workers, ls)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if _, errOut, code := katbench(t, dir, append([]string{"merge", "-o", merged}, files...)...); code != 0 {
		t.Fatalf("merge exit %d: %s", code, errOut)
	}
	ms, err := analysis.Load(merged)
	if err != nil || len(ms) != 2 {
		t.Fatalf("merged: %d lines, %v", len(ms), err)
	}
	for _, m := range ms {
		var ops int64
		var sum *hdrhistogram.Histogram
		for _, w := range workers {
			for _, l := range w {
				if l.Scenario != m.Scenario {
					continue
				}
				ops += l.Ops
				h, err := analysis.DecodeHist(l)
				if err != nil {
					t.Fatal(err)
				}
				if sum == nil {
					sum = h
				} else {
					sum.Merge(h)
				}
			}
		}
		if m.Ops != ops || m.Ops != sum.TotalCount() {
			t.Fatalf("%s: merged ops %d, workers' sum %d", m.Scenario, m.Ops, ops)
		}
		if *m.P50US != float64(sum.ValueAtQuantile(50))/1e3 || *m.P99US != float64(sum.ValueAtQuantile(99))/1e3 {
			t.Fatalf("%s: merged p50/p99 %v/%v, summed histogram says %v/%v", m.Scenario, *m.P50US, *m.P99US,
				float64(sum.ValueAtQuantile(50))/1e3, float64(sum.ValueAtQuantile(99))/1e3)
		}
		if m.Scenario == "load_table.throughput.t2" && m.Threads != 2*n {
			t.Fatalf("throughput threads %d: the workers' windows did not overlap (start-at)", m.Threads)
		}
	}
	raw, _ := os.ReadFile(merged)
	if !bytes.Contains(raw, []byte(`"merged_from":[`)) {
		t.Fatal("merged line does not list its sources")
	}
}
