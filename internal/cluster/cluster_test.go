package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nordisk/katbench/scenarios"
)

func TestPodProblem(t *testing.T) {
	pod := func(js string) podView {
		var p podView
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for js, want := range map[string]string{
		`{"status":{"phase":"Running"}}`: "",
		`{"status":{"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ContainerCreating"}}}]}}`:                             "",
		`{"status":{"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ImagePullBackOff","message":"nope"}}}]}}`:             "ImagePullBackOff: nope",
		`{"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/1 nodes"}]}}`: "Unschedulable: 0/1 nodes",
		`{"status":{"phase":"Failed","containerStatuses":[{"state":{"terminated":{"reason":"OOMKilled","exitCode":137}}}]}}`:                    "OOMKilled (exit 137)",
		`{"status":{"phase":"Succeeded","containerStatuses":[{"state":{"terminated":{"reason":"Completed","exitCode":0}}}]}}`:                   "",
		`{"status":{"phase":"Failed","reason":"DeadlineExceeded","message":"too long"}}`:                                                        "Failed: DeadlineExceeded too long",
	} {
		if got := podProblem(pod(js)); got != want {
			t.Errorf("%s: %q, want %q", js, got, want)
		}
	}
}

// TestWorkerLines: only the result lines of a log are kept, each with its
// host named after the node.
func TestWorkerLines(t *testing.T) {
	logs := "katbench: building the dataset\n" +
		`{"schema":4,"run_id":"a","host":{"hostname":"pod-0","cores":2},"ops":5}` + "\n" +
		"{not json\n" + `{"other":1}` + "\n"
	var buf bytes.Buffer
	n, err := workerLines(&buf, []byte(logs), "node-1")
	if err != nil || n != 1 {
		t.Fatalf("%d lines, %v; want 1", n, err)
	}
	var l struct {
		RunID string `json:"run_id"`
		Ops   int
		Host  struct {
			Hostname string
			Cores    int
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &l); err != nil || l.RunID != "a" || l.Ops != 5 || l.Host.Hostname != "node-1" || l.Host.Cores != 2 {
		t.Fatalf("%s (%v)", buf.Bytes(), err)
	}
}

// TestJobPods: a failed Job is reported with its reason beside its pods.
func TestJobPods(t *testing.T) {
	out := `{"items":[{"kind":"Job","status":{"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded","message":"Job was active longer than specified deadline"}]}},
		{"kind":"Pod","metadata":{"name":"p0"},"status":{"phase":"Running"}}]}`
	pods, failed, err := jobPods([]byte(out))
	if err != nil || len(pods) != 1 || pods[0].Metadata.Name != "p0" || failed != "DeadlineExceeded: Job was active longer than specified deadline" {
		t.Fatalf("pods %+v, failed %q, err %v", pods, failed, err)
	}
	if _, failed, err := jobPods([]byte(`{"items":[{"kind":"Job","status":{}}]}`)); err != nil || failed != "" {
		t.Fatalf("a running Job: failed %q, err %v", failed, err)
	}
	if _, _, err := jobPods([]byte(`not json`)); err == nil {
		t.Fatal("bad JSON accepted")
	}
}

// TestStartBarrier: no worker gets a start instant until every one has
// logged that it is ready, and then all get the same one.
func TestStartBarrier(t *testing.T) {
	pods := make([]podView, 3)
	for i := range pods {
		pods[i].Metadata.Name = "w" + string(rune('0'+i))
		pods[i].Status.Phase = "Running"
	}
	b := newStartBarrier(3)
	got := map[string]time.Time{}
	var mu sync.Mutex
	signal := func(_ context.Context, pod string, at time.Time) error {
		mu.Lock()
		defer mu.Unlock()
		got[pod] = at
		return nil
	}
	at := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	if w := b.waiting(pods[:2]); len(w) != 3 {
		t.Fatalf("with 2 of 3 pods created and none ready: waiting %v", w)
	}
	b.see("w0", []byte("katbench: building\n"+scenarios.ReadyMark+": setup done\n"))
	b.see("w1", []byte("katbench: building\n"))
	b.see("w2", []byte(scenarios.ReadyMark+": setup done\n"))
	if w := b.waiting(pods); len(w) != 1 || !strings.HasPrefix(w[0], "w1 ") {
		t.Fatalf("waiting %v, want w1 alone", w)
	}
	if _, err := b.release(context.Background(), pods, at, signal); err == nil || len(got) != 0 || !b.at.IsZero() {
		t.Fatalf("released with w1 not ready: err %v, signals %v", err, got)
	}
	b.see("w1", []byte(scenarios.ReadyMark+": setup done\n"))
	if _, err := b.release(context.Background(), pods, at, signal); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !b.at.Equal(at) {
		t.Fatalf("signals %v, barrier at %v: want all 3 at %v", got, b.at, at)
	}
	for pod, a := range got {
		if !a.Equal(at) {
			t.Errorf("%s got %v, want %v", pod, a, at)
		}
	}
	failing := func(_ context.Context, pod string, _ time.Time) error {
		if pod == "w2" {
			return errors.New("exec refused")
		}
		return nil
	}
	if _, err := newStartBarrierAllReady(pods).release(context.Background(), pods, at, failing); err == nil || !strings.Contains(err.Error(), "w2") {
		t.Fatalf("a failed hand-out: err %v, want it named", err)
	}
	done := pods[1]
	done.Status.Phase = "Succeeded"
	if err := newStartBarrier(3).poll(context.Background(), Options{}, []podView{pods[0], done}); err == nil {
		t.Fatal("a worker that ended before the start was not an error")
	}
}

func newStartBarrierAllReady(pods []podView) *startBarrier {
	b := newStartBarrier(len(pods))
	for _, p := range pods {
		b.see(p.Metadata.Name, []byte(scenarios.ReadyMark))
	}
	return b
}

func TestParseWorkerMetrics(t *testing.T) {
	for _, tc := range []struct {
		name      string
		text      string
		ops, errs int64
		bad       bool
	}{
		{name: "no series yet", text: "# HELP katbench_operations_total x\n# TYPE katbench_operations_total counter\n"},
		{name: "two series summed", text: `katbench_operations_total{target="rest",scenario="load_table.latency"} 120
katbench_operations_total{target="rest",scenario="a b"} 30
katbench_errors_total{target="rest",scenario="load_table.latency"} 2
katbench_operation_duration_seconds_count{target="rest",scenario="load_table.latency"} 120
`, ops: 150, errs: 2},
		{name: "a count that does not parse", text: `katbench_operations_total{target="rest"} many`, bad: true},
		{name: "a negative count", text: `katbench_errors_total{target="rest"} -1`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseWorkerMetrics([]byte(tc.text))
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v, want error: %v", err, tc.bad)
			}
			if c.ops != tc.ops || c.errs != tc.errs {
				t.Errorf("counts = %+v, want ops %d errs %d", c, tc.ops, tc.errs)
			}
		})
	}
}

func TestLiveProgressKeepsFinishedWorkers(t *testing.T) {
	p := newLiveProgress()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.see("w-0", []byte(`katbench_operations_total{target="rest",scenario="s"} 1000`), nil)
	p.see("w-1", []byte(`katbench_operations_total{target="rest",scenario="s"} 500`), nil)
	if got, want := p.line(t0, 3), "measured so far, 2 of 3 workers: 1,500 ops, 0 errors"; got != want {
		t.Fatalf("first line = %q, want %q", got, want)
	}
	// w-0 finished (not scraped again), w-1 moved on, w-2 cannot be reached.
	p.see("w-1", []byte(`katbench_operations_total{target="rest",scenario="s"} 2500
katbench_errors_total{target="rest",scenario="s"} 4`), nil)
	p.see("w-2", nil, errors.New("pod proxy: connection refused"))
	got := p.line(t0.Add(4*time.Second), 3)
	want := "measured so far, 2 of 3 workers: 3,500 ops, 4 errors; 500 ops/s over the last 4.0 s (metrics of w-2 not reachable: pod proxy: connection refused)"
	if got != want {
		t.Fatalf("second line = %q\nwant %q", got, want)
	}
}
