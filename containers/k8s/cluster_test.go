//go:build k8s

// The cluster tests run only with -tags k8s (make test-k8s): they bring up
// a real single-node Kubernetes cluster with cluster_up.sh, which needs
// root and the binaries of build.sh, and remove it with cluster_down.sh.

package k8s

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// testCluster brings the cluster up under a state dir and network
// namespace of this test's own and returns its exports; cleanup removes it.
func testCluster(t *testing.T) map[string]string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Need(t, "root (a network namespace, containerd and the kubelet)", os.ErrPermission)
	}
	root := testenv.RepoRoot()
	netns := os.Getenv("KATBENCH_K8S_NETNS")
	if netns == "" {
		netns = "kb-test-k8s"
	}
	env := append(os.Environ(), "KATBENCH_STATE_DIR="+t.TempDir(), "KATBENCH_K8S_NETNS="+netns)
	down := func() {
		c := exec.Command(filepath.Join(root, "containers/k8s/cluster_down.sh"))
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("cluster_down.sh: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	up := exec.CommandContext(ctx, filepath.Join(root, "containers/k8s/cluster_up.sh"))
	up.Env = env
	var stderr bytes.Buffer
	up.Stderr = &stderr
	out, err := up.Output()
	t.Cleanup(down)
	if err != nil {
		t.Fatalf("cluster_up.sh: %v\n%s", err, stderr.String())
	}
	ex := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			ex[k] = strings.Trim(v, "'")
		}
	}
	for _, k := range []string{"KATBENCH_KUBECTL", "KATBENCH_K8S_NETNS", "KATBENCH_K8S_NODE_IP", "KATBENCH_K8S_IMAGE"} {
		if ex[k] == "" {
			t.Fatalf("cluster_up.sh exported no %s:\n%s", k, out)
		}
	}
	return ex
}

// TestClusterRun: `katbench cluster run --workers 2` against one `katbench
// serve rest` in the cluster's network namespace merges both workers'
// lines (ops the sum, the node's cores once, skew fields), a worker with a
// bad argument fails the command with the pod's message, and neither leaves
// a Job or a pod behind.
func TestClusterRun(t *testing.T) {
	ex := testCluster(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "katbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/katbench")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	serve := exec.Command("nsenter", "--net=/run/netns/"+ex["KATBENCH_K8S_NETNS"], "--", bin, "serve", "rest", "--addr", ex["KATBENCH_K8S_NODE_IP"]+":8181")
	url, _ := testenv.ServeRest(t, serve)

	run := func(t *testing.T, args ...string) (stdout, stderr string, err error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, bin, append([]string{"cluster", "run", "--kubectl", ex["KATBENCH_KUBECTL"], "--image", ex["KATBENCH_K8S_IMAGE"]}, args...)...)
		var o, e bytes.Buffer
		c.Stdout, c.Stderr = &o, &e
		err = c.Run()
		return o.String(), e.String(), err
	}
	leftovers := func(t *testing.T) {
		t.Helper()
		out, err := exec.Command(ex["KATBENCH_KUBECTL"], "get", "jobs,pods", "-l", "app.kubernetes.io/name=katbench", "-o", "name").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("left in the namespace (%v): %s", err, out)
		}
	}

	t.Run("two workers", func(t *testing.T) {
		workers := filepath.Join(dir, "workers.jsonl")
		stdout, stderr, err := run(t, "--workers", "2", "--setup", "40s", "--worker-lines", workers, "--",
			"rest", url, "--quick", "--server-cost=false", "--scenario", "load_table.throughput.t1", "--duration", "1s")
		if err != nil {
			t.Fatalf("cluster run: %v\n%s", err, stderr)
		}
		var merged []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("merged line %q: %v", l, err)
			}
			merged = append(merged, m)
		}
		if len(merged) != 1 {
			t.Fatalf("%d merged lines, want 1:\n%s", len(merged), stdout)
		}
		m := merged[0]
		b, err := os.ReadFile(workers)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		runIDs := map[string]bool{}
		var cores float64
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var w map[string]any
			if err := json.Unmarshal([]byte(l), &w); err != nil {
				t.Fatal(err)
			}
			sum += w["ops"].(float64)
			runIDs[w["run_id"].(string)] = true
			cores = w["host"].(map[string]any)["cores"].(float64)
		}
		from, _ := m["merged_from"].([]any)
		if len(runIDs) != 2 || len(from) != 2 {
			t.Fatalf("worker run ids %v, merged_from %v: want 2 workers", runIDs, from)
		}
		if m["ops"].(float64) != sum || sum == 0 {
			t.Errorf("merged ops %v, workers' sum %v", m["ops"], sum)
		}
		if got := m["host"].(map[string]any)["cores"].(float64); got != cores {
			t.Errorf("merged host has %v cores, the node %v: pods on one node must count once", got, cores)
		}
		for _, k := range []string{"skew_start_ms", "skew_end_ms"} {
			if _, ok := m[k]; !ok {
				t.Errorf("merged line has no %s", k)
			}
		}
		leftovers(t)
	})

	t.Run("failing worker", func(t *testing.T) {
		_, stderr, err := run(t, "--workers", "1", "--setup", "30s", "--", "rest", url, "--no-such-flag")
		if err == nil {
			t.Fatalf("cluster run with a bad worker argument exited 0:\n%s", stderr)
		}
		if !strings.Contains(stderr, "failed") || !strings.Contains(stderr, "no-such-flag") {
			t.Errorf("stderr does not carry the pod's failure and message:\n%s", stderr)
		}
		leftovers(t)
	})
}
