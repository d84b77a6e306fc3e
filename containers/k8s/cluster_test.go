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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestClusterRun: `katbench cluster run --workers 3` against one `katbench
// serve rest` running as a Deployment + Service in the cluster
// (catalog-rest.yaml; reached at the pod's address from the Service's
// EndpointSlice: the test cluster has no kube-proxy and no DNS) merges the
// workers' lines (ops the sum, the node's cores once, skew fields, one
// start instant from the barrier), a worker with a bad argument fails the
// command with the pod's message, and neither leaves a Job or a pod behind.
func TestClusterRun(t *testing.T) {
	ex := testCluster(t)
	kc := func(args ...string) ([]byte, error) {
		return exec.Command(ex["KATBENCH_KUBECTL"], args...).CombinedOutput()
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "katbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/katbench")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	url := inClusterCatalog(t, ex["KATBENCH_KUBECTL"], ex["KATBENCH_K8S_IMAGE"])

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
		out, err := kc("get", "jobs,pods", "-l", "app.kubernetes.io/name=katbench", "-o", "name")
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("left in the namespace (%v): %s", err, out)
		}
	}

	t.Run("three workers", func(t *testing.T) {
		const n = 3
		workers := filepath.Join(dir, "workers.jsonl")
		stdout, stderr, err := run(t, "--workers", strconv.Itoa(n), "--setup", "3m", "--worker-lines", workers, "--",
			"rest", url, "--quick", "--server-cost=false", "--scenario", "load_table.throughput.t1", "--duration", "10s")
		if err != nil {
			t.Fatalf("cluster run: %v\n%s", err, stderr)
		}
		if !strings.Contains(stderr, "all 3 workers ready") {
			t.Errorf("stderr does not say the barrier released all 3 workers:\n%s", stderr)
		}
		// Live progress: the workers' merged counts while they measure,
		// read from their metrics; never more than the merged line's ops.
		var liveOps []float64
		for _, l := range strings.Split(stderr, "\n") {
			if _, rest, ok := strings.Cut(l, "measured so far, "); ok {
				if _, rest, ok = strings.Cut(rest, " workers: "); ok {
					f, _, _ := strings.Cut(rest, " ops")
					v, err := strconv.ParseFloat(strings.ReplaceAll(f, ",", ""), 64)
					if err != nil {
						t.Fatalf("progress line %q: %v", l, err)
					}
					liveOps = append(liveOps, v)
				}
			}
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
		starts := map[string]bool{}
		var cores float64
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var w map[string]any
			if err := json.Unmarshal([]byte(l), &w); err != nil {
				t.Fatal(err)
			}
			sum += w["ops"].(float64)
			runIDs[w["run_id"].(string)] = true
			starts[fmt.Sprint(w["params"].(map[string]any)["start_at"])] = true
			cores = w["host"].(map[string]any)["cores"].(float64)
		}
		from, _ := m["merged_from"].([]any)
		if len(runIDs) != n || len(from) != n {
			t.Fatalf("worker run ids %v, merged_from %v: want %d workers", runIDs, from, n)
		}
		if len(starts) != 1 || starts["<nil>"] {
			t.Errorf("the workers' start instants %v: want one, from the barrier", starts)
		}
		if len(liveOps) == 0 || liveOps[len(liveOps)-1] <= 0 || liveOps[len(liveOps)-1] > m["ops"].(float64) {
			t.Errorf("live progress %v: want a last count above 0 and at most the merged %v ops\n%s", liveOps, m["ops"], stderr)
		}
		if m["ops"].(float64) != sum || sum == 0 {
			t.Errorf("merged ops %v, workers' sum %v", m["ops"], sum)
		}
		if got := m["host"].(map[string]any)["cores"].(float64); got != cores {
			t.Errorf("merged host has %v cores, the node %v: pods on one node must count once", got, cores)
		}
		t.Logf("3 workers: ops %v, ops/s %v, skew_start_ms %v, skew_end_ms %v", m["ops"], m["ops_sec"], m["skew_start_ms"], m["skew_end_ms"])
		for _, k := range []string{"skew_start_ms", "skew_end_ms", "hist", "p50_us", "p99_us"} {
			if _, ok := m[k]; !ok {
				t.Errorf("merged line has no %s", k)
			}
		}
		leftovers(t)
	})

	t.Run("failing worker", func(t *testing.T) {
		began := time.Now()
		_, stderr, err := run(t, "--workers", "1", "--setup", "30s", "--", "rest", url, "--no-such-flag")
		if err == nil {
			t.Fatalf("cluster run with a bad worker argument exited 0:\n%s", stderr)
		}
		if !strings.Contains(stderr, "failed") || !strings.Contains(stderr, "no-such-flag") {
			t.Errorf("stderr does not carry the pod's failure and message:\n%s", stderr)
		}
		if d := time.Since(began); d > 60*time.Second {
			t.Errorf("a failing worker ended the command after %v, want within 60 s", d)
		}
		leftovers(t)
	})
}

// inClusterCatalog runs catalog-rest.yaml (with image) in the cluster,
// waits until its Service has a ready endpoint and returns the URL of that
// pod's address; cleanup deletes it and checks that nothing is left.
func inClusterCatalog(t *testing.T, kubectl, image string) string {
	t.Helper()
	b, err := os.ReadFile("catalog-rest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	apply := exec.Command(kubectl, "apply", "-f", "-")
	apply.Stdin = strings.NewReader(strings.ReplaceAll(string(b), "image: katbench:dev", "image: "+image))
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply catalog-rest.yaml: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		out, err := exec.Command(kubectl, "delete", "-f", "catalog-rest.yaml", "--cascade=foreground", "--wait=true", "--timeout=90s").CombinedOutput()
		if err != nil {
			t.Errorf("deleting the catalog: %v\n%s", err, out)
		}
		out, err = exec.Command(kubectl, "get", "deployments,replicasets,pods,services,endpointslices", "-l", "app.kubernetes.io/name=katbench-catalog", "-o", "name").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("left in the namespace after deleting the catalog (%v): %s", err, out)
		}
	})
	// kubectl wait watches the API server: the test wakes on the change,
	// and gives up after the timeout. The Deployment first (its slice
	// exists by then: `wait -l` on no object fails at once), then the slice.
	if out, err := exec.Command(kubectl, "wait", "deployment/katbench-catalog", "--for=condition=Available", "--timeout=3m").CombinedOutput(); err != nil {
		pods, _ := exec.Command(kubectl, "get", "pods", "-l", "app.kubernetes.io/name=katbench-catalog", "-o", "wide").CombinedOutput()
		t.Fatalf("the catalog's Deployment is not available after 3 min (%v: %s):\n%s", err, out, pods)
	}
	wait := exec.Command(kubectl, "wait", "endpointslices", "-l", "kubernetes.io/service-name=katbench-catalog",
		"--for=jsonpath={.endpoints[0].conditions.ready}=true", "--timeout=3m")
	if out, err := wait.CombinedOutput(); err != nil {
		pods, _ := exec.Command(kubectl, "get", "pods", "-l", "app.kubernetes.io/name=katbench-catalog", "-o", "wide").CombinedOutput()
		t.Fatalf("the catalog's Service has no ready endpoint after 3 min (%v: %s):\n%s", err, out, pods)
	}
	out, err := exec.Command(kubectl, "get", "endpointslices", "-l", "kubernetes.io/service-name=katbench-catalog", "-o", "json").Output()
	if err != nil {
		t.Fatalf("kubectl get endpointslices: %v", err)
	}
	var list struct {
		Items []struct {
			Endpoints []struct {
				Addresses  []string
				Conditions struct{ Ready *bool }
			}
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("endpointslices: %v", err)
	}
	for _, it := range list.Items {
		for _, e := range it.Endpoints {
			if e.Conditions.Ready != nil && *e.Conditions.Ready && len(e.Addresses) > 0 {
				return "http://" + e.Addresses[0] + ":8181"
			}
		}
	}
	t.Fatalf("kubectl wait saw a ready endpoint, but the EndpointSlice lists none:\n%s", out)
	return ""
}
