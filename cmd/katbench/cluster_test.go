package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestClusterDryRun: the printed Job runs N indexed workers with no shell,
// no volume, small requests, one future start instant and no retry.
func TestClusterDryRun(t *testing.T) {
	before := time.Now()
	stdout, stderr, code := clusterCLI(t, "cluster", "run", "--workers", "3", "--image", "katbench:test", "--dry-run",
		"--node-selector", "pool=bench", "--", "rest", "http://catalog:8181", "--quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var job struct {
		Kind string
		Spec struct {
			CompletionMode           string
			Completions, Parallelism int
			BackoffLimit             *int
			Template                 struct {
				Spec struct {
					RestartPolicy string
					NodeSelector  map[string]string
					Volumes       []any
					Containers    []struct {
						Image, ImagePullPolicy string
						Command, Args          []string
						Resources              struct{ Requests, Limits map[string]string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &job); err != nil {
		t.Fatalf("dry run printed no JSON Job: %v\n%s", err, stdout)
	}
	s := job.Spec
	if job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions != 3 || s.Parallelism != 3 || s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Fatalf("want an Indexed Job of 3, never retried: %+v", s)
	}
	p := s.Template.Spec
	if p.RestartPolicy != "Never" || len(p.Volumes) != 0 || len(p.Containers) != 1 || p.NodeSelector["pool"] != "bench" {
		t.Fatalf("pod spec %+v", p)
	}
	c := p.Containers[0]
	if len(c.Command) != 0 || c.Image != "katbench:test" || c.ImagePullPolicy != "IfNotPresent" || c.Resources.Requests["cpu"] != "250m" || c.Resources.Limits != nil {
		t.Fatalf("container %+v: want the image's own entrypoint, small requests, no CPU limit", c)
	}
	args := strings.Join(c.Args, " ")
	if !strings.HasPrefix(args, "rest http://catalog:8181 --quick --shards 3 --start-at ") || !strings.HasSuffix(args, " --format jsonl") {
		t.Fatalf("args %q", args)
	}
	at, err := time.Parse(time.RFC3339, c.Args[len(c.Args)-3])
	if err != nil || !at.After(before.Add(80*time.Second)) {
		t.Fatalf("--start-at %q (%v): want the default --setup 90s after now", c.Args[len(c.Args)-3], err)
	}
}

// clusterCLI runs the katbench binary without the cluster's environment.
func clusterCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return katbenchEnv(t, t.TempDir(), []string{"KATBENCH_K8S_IMAGE=", "KATBENCH_KUBECTL="}, args...)
}

func TestClusterRunRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"cluster", "run", "--", "rest"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--", "rest", "--shards", "4"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--", "rest", "--start-at=2026-01-01T00:00:00Z"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--node-selector", "nokey", "--", "rest"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--setup", "2h", "--", "rest"},
		{"cluster", "run", "--workers", "2"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--format", "xml", "--", "rest"},
	} {
		if _, stderr, code := clusterCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}

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
