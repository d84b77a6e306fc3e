// Package k8s holds the Kubernetes side of a distributed katbench run: the
// example Job (its test checks the manifest offline) and, with -tags k8s,
// the tests that run `katbench cluster run` on a real cluster
// (cluster_up.sh).
package k8s

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image     string   `yaml:"image"`
					Command   []string `yaml:"command"`
					Args      []string `yaml:"args"`
					Resources struct {
						Requests map[string]string `yaml:"requests"`
						Limits   map[string]string `yaml:"limits"`
					} `yaml:"resources"`
				} `yaml:"containers"`
				Volumes []any `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestIndexedJobManifest: the example Job has none of the defects that
// stop a scratch image's Job on an ordinary cluster: no shell, no volume
// (an RWX claim stays Pending without a provisioner), small requests, no
// retry, and --shards equal to the completions.
func TestIndexedJobManifest(t *testing.T) {
	b, err := os.ReadFile("katbench-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []manifest
	for {
		var m manifest
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		docs = append(docs, m)
	}
	if len(docs) != 1 || docs[0].Kind != "Job" || docs[0].APIVersion != "batch/v1" {
		t.Fatalf("want one batch/v1 Job and nothing else (no PersistentVolumeClaim): %+v", docs)
	}
	s := docs[0].Spec
	if s.CompletionMode != "Indexed" || s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 2 {
		t.Fatalf("want an Indexed Job with completions = parallelism ≥ 2: %+v", s)
	}
	if s.Template.Spec.RestartPolicy != "Never" || s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Fatal("a failed worker must not be retried into a second, unaligned measurement")
	}
	if len(s.Template.Spec.Volumes) != 0 || len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container and no volume: %+v", s.Template.Spec)
	}
	c := s.Template.Spec.Containers[0]
	if len(c.Command) != 0 || c.Image == "" {
		t.Fatalf("container %+v: the image has no shell; its entrypoint runs the args", c)
	}
	if cpu := c.Resources.Requests["cpu"]; !strings.HasSuffix(cpu, "m") || c.Resources.Limits["cpu"] != "" {
		t.Fatalf("cpu request %q, limit %q: want a small request in millicores and no CPU limit", cpu, c.Resources.Limits["cpu"])
	}
	args := strings.Join(c.Args, " ")
	m := regexp.MustCompile(`--shards (\d+)`).FindStringSubmatch(args)
	if m == nil {
		t.Fatalf("args lack --shards: %s", args)
	}
	if n, _ := strconv.Atoi(m[1]); n != *s.Completions {
		t.Fatalf("--shards %d but completions %d", n, *s.Completions)
	}
	for _, want := range []string{"--start-at 20", "--format jsonl"} {
		if !strings.Contains(args, want) {
			t.Fatalf("args lack %q: %s", want, args)
		}
	}
	if strings.Contains(args, "$") || strings.Contains(args, "/results") {
		t.Fatalf("args %s: nothing expands variables or writes to a volume in a scratch image", args)
	}
}
