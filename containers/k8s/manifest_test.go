// Package k8s holds the Kubernetes manifest of a distributed katbench run;
// its test checks the manifest's structure offline.
package k8s

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"

	"gopkg.in/yaml.v3"
)

type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
					PVC  *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func TestIndexedJobManifest(t *testing.T) {
	b, err := os.ReadFile("katbench-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(false)
	docs := map[string]manifest{}
	pvcs := map[string]bool{}
	for {
		var m manifest
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		if err := node.Decode(&m); err != nil {
			t.Fatalf("YAML document: %v", err)
		}
		docs[m.Kind] = m
		if m.Kind == "PersistentVolumeClaim" {
			pvcs[m.Metadata.Name] = true
		}
	}
	job, ok := docs["Job"]
	if !ok || job.APIVersion != "batch/v1" {
		t.Fatalf("no batch/v1 Job in the manifest: %v", docs)
	}
	s := job.Spec
	if s.CompletionMode != "Indexed" || s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 2 {
		t.Fatalf("want an Indexed Job with completions = parallelism ≥ 2: %+v", s)
	}
	if s.Template.Spec.RestartPolicy != "Never" || s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Fatal("a failed worker must not be retried into a second, unaligned measurement")
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatal("want one container")
	}
	c := s.Template.Spec.Containers[0]
	if c.Image == "" || len(c.Args) != 1 {
		t.Fatalf("container %+v", c)
	}
	args := c.Args[0]
	m := regexp.MustCompile(`--shards (\d+)`).FindStringSubmatch(args)
	if m == nil {
		t.Fatalf("args lack --shards: %s", args)
	}
	if n, _ := strconv.Atoi(m[1]); n != *s.Completions {
		t.Fatalf("--shards %d but completions %d", n, *s.Completions)
	}
	for _, want := range []string{`--start-at "$START_AT"`, "--format jsonl", "$JOB_COMPLETION_INDEX", "--history \"/results/"} {
		if !bytes.Contains([]byte(args), []byte(want)) {
			t.Fatalf("args lack %q: %s", want, args)
		}
	}
	envs := map[string]bool{}
	for _, e := range c.Env {
		envs[e.Name] = e.Value != ""
	}
	if !envs["START_AT"] || !envs["TARGET_URL"] {
		t.Fatalf("env %v", envs)
	}
	mounted := false
	for _, vm := range c.VolumeMounts {
		for _, v := range s.Template.Spec.Volumes {
			if v.Name == vm.Name && vm.MountPath == "/results" && v.PVC != nil && pvcs[v.PVC.ClaimName] {
				mounted = true
			}
		}
	}
	if !mounted {
		t.Fatal("/results is not a mounted PersistentVolumeClaim defined in the manifest")
	}
}
