package main

import (
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
				Metadata struct{ Annotations map[string]string }
				Spec     struct {
					RestartPolicy string
					NodeSelector  map[string]string
					Volumes       []any
					Containers    []struct {
						Image, ImagePullPolicy string
						Command, Args          []string
						Resources              struct{ Requests, Limits map[string]string }
						Ports                  []struct{ ContainerPort int }
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
	if !strings.HasPrefix(args, "rest http://catalog:8181 --quick --shards 3 --start-at ") || !strings.HasSuffix(args, " --format jsonl --metrics-addr :9464") {
		t.Fatalf("args %q", args)
	}
	at, err := time.Parse(time.RFC3339, c.Args[6])
	if err != nil || !at.After(before.Add(80*time.Second)) {
		t.Fatalf("--start-at %q (%v): want the default --setup after now", c.Args[6], err)
	}
	a := job.Spec.Template.Metadata.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "9464" || a["prometheus.io/path"] != "/metrics" || len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9464 {
		t.Fatalf("pod annotations %v, ports %+v: want the workers' metrics scraped", a, c.Ports)
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
		{"cluster", "run", "--workers", "2", "--dry-run", "--", "rest", "--start-file", "x"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--", "rest", "--metrics-addr=:1"},
		{"cluster", "run", "--workers", "2", "--dry-run", "--metrics-port", "70000", "--", "rest"},
	} {
		if _, stderr, code := clusterCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}
