package cluster

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PodStartFile is where a worker pod waits for its start instant (the
// image has an empty, writable /tmp).
const PodStartFile = "/tmp/katbench-start"

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

// Job is the Indexed Job: no shell (the image has none), no volume
// (the lines come back through the pod logs), small requests. Its workers
// wait at the start barrier (PodStartFile), or, given a start instant (a
// dry run), start then.
func Job(o Options, name string, sel map[string]string, start time.Time, args []string) map[string]any {
	n := strconv.Itoa(o.Workers)
	wargs := append(append([]string{}, args...), "--shards", n)
	if start.IsZero() {
		wargs = append(wargs, "--start-file", PodStartFile)
	} else {
		wargs = append(wargs, "--start-at", start.Format(time.RFC3339))
	}
	wargs = append(wargs, "--format", "jsonl")
	labels := map[string]string{"app.kubernetes.io/name": "katbench", "katbench/run": name}
	podMeta := map[string]any{"labels": labels}
	container := map[string]any{
		"name":            "katbench",
		"image":           o.Image,
		"imagePullPolicy": "IfNotPresent",
		"resources":       map[string]any{"requests": map[string]string{"cpu": o.CPU, "memory": o.Memory}},
	}
	if o.MetricsPort > 0 {
		port := strconv.Itoa(o.MetricsPort)
		wargs = append(wargs, "--metrics-addr", ":"+port)
		podMeta["annotations"] = map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics"}
		container["ports"] = []any{map[string]any{"name": "metrics", "containerPort": o.MetricsPort}}
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
		"metadata":   map[string]any{"name": name, "namespace": o.Namespace, "labels": labels},
		"spec": map[string]any{
			"completionMode":          "Indexed",
			"completions":             o.Workers,
			"parallelism":             o.Workers,
			"backoffLimit":            0,
			"activeDeadlineSeconds":   int(o.Timeout.Seconds()),
			"ttlSecondsAfterFinished": 3600,
			"template": map[string]any{
				"metadata": podMeta,
				"spec":     pod,
			},
		},
	}
}
