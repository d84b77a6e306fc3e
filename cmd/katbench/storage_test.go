package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport/s3"
)

// s3Env is an environment with an endpoint and keys, for flag tests that
// must fail before any request.
var s3Env = []string{s3.EnvEndpoint + "=http://127.0.0.1:9", s3.EnvAccessKey + "=k", s3.EnvSecretKey + "=s", "KATBENCH_TRANSPORT="}

func TestStorageBadInputExitsTwo(t *testing.T) {
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"s3 without endpoint", []string{s3.EnvEndpoint + "="}, []string{"embedded", "--warehouse", "s3://bench/wh"}, "needs an S3 endpoint"},
		{"bad endpoint", nil, []string{"embedded", "--warehouse", "s3://bench/wh", "--s3-endpoint", "127.0.0.1:9"}, "--s3-endpoint"},
		{"no keys", []string{s3.EnvAccessKey + "="}, []string{"run", "embedded", "--warehouse", "s3://bench/wh"}, s3.EnvAccessKey},
		{"bad scheme", nil, []string{"embedded", "--warehouse", "ftp://bench/wh"}, "want file or s3"},
		{"relative file", nil, []string{"embedded", "--warehouse", "file://rel/wh"}, "file:///absolute/path"},
		{"bad bucket", nil, []string{"embedded", "--warehouse", "s3://Bad_Bucket/wh"}, "Bad_Bucket"},
		{"no bucket", nil, []string{"embedded", "--warehouse", "s3:///wh"}, "no bucket"},
		{"bad transport", nil, []string{"embedded", "--warehouse", "s3://bench/wh", "--transport", "pigeon"}, "--transport"},
		{"bad transport env", []string{"KATBENCH_TRANSPORT=pigeon"}, []string{"embedded", "--warehouse", "s3://bench/wh"}, "KATBENCH_TRANSPORT"},
		{"bad transport without s3", nil, []string{"embedded", "--transport", "io_uring"}, "--transport"},
		{"bad transport file warehouse", nil, []string{"run", "embedded", "--warehouse", "file:///tmp/wh", "--transport", "io_uring"}, "--transport"},
		{"serve rest", []string{s3.EnvEndpoint + "="}, []string{"serve", "rest", "--addr", "127.0.0.1:0", "--warehouse", "s3://bench/wh"}, "needs an S3 endpoint"},
		{"serve grpc", nil, []string{"serve", "grpc", "--addr", "127.0.0.1:0", "--warehouse", "s3://bench/wh", "--transport", "x"}, "--transport"},
		{"vend without s3", nil, []string{"serve", "rest", "--addr", "127.0.0.1:0", "--vend-storage-credentials"}, "needs an s3:// --warehouse"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantUsageError(t, append(append([]string{}, s3Env...), c.env...), c.args, c.want) })
	}
}

// TestStorageUnreachableEndpoint: nothing listens there; a clear error
// naming the endpoint, exit 1, before anything is created.
func TestStorageUnreachableEndpoint(t *testing.T) {
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ep := "http://127.0.0.1:" + strconv.Itoa(port)
	dir := t.TempDir()
	_, stderr, code := katbenchEnv(t, dir, s3Env, "embedded", "--quick", "--warehouse", "s3://bench/wh", "--s3-endpoint", ep,
		"--dir", filepath.Join(dir, "work"), "--history", filepath.Join(dir, "h.jsonl"))
	if code != 1 || !strings.Contains(stderr, "unreachable") || !strings.Contains(stderr, ep) {
		t.Fatalf("exit %d, stderr %q; want exit 1 saying %s is unreachable", code, stderr, ep)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an unreachable warehouse still wrote %v", entries)
	}
}

// TestStorageVersitygw runs the CLI against a real versitygw: refused keys
// are an error that creates nothing; a good run creates the missing bucket,
// says so, writes every competitor's metadata under its own prefix, and
// every line names the warehouse and the transport; an https endpoint with
// uring reports the fallback.
func TestStorageVersitygw(t *testing.T) {
	st := testenv.Versitygw(t)
	env := []string{s3.EnvEndpoint + "=" + st.Endpoint, s3.EnvAccessKey + "=" + st.AccessKey,
		s3.EnvSecretKey + "=" + st.SecretKey, s3.EnvRegion + "=" + st.Region, "KATBENCH_TRANSPORT="}
	admin, _, err := s3.NewClient(s3.Config{Endpoint: st.Endpoint, AccessKey: st.AccessKey, SecretKey: st.SecretKey, Region: st.Region})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bench := []string{"--quick", "--tables", "8", "--ops", "20", "--create-ops", "5", "--warmup", "1ms",
		"--scenario", "create_table.latency,commit_table.latency", "--history", ""}

	t.Run("wrong keys", func(t *testing.T) {
		dir := t.TempDir()
		bad := append(append([]string{}, env...), s3.EnvSecretKey+"=wrong")
		_, stderr, code := katbenchEnv(t, dir, bad, append([]string{"embedded", "--warehouse", "s3://denied/wh", "--dir", filepath.Join(dir, "w")}, bench...)...)
		if code != 1 || !strings.Contains(stderr, "refused the credentials") || !strings.Contains(stderr, st.Endpoint) {
			t.Fatalf("exit %d, stderr %q; want exit 1, refused credentials at %s", code, stderr, st.Endpoint)
		}
		if ok, err := admin.BucketExists(ctx, "denied"); err != nil || ok {
			t.Fatalf("bucket created with refused keys: exists=%v err=%v", ok, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("refused keys still wrote %v", entries)
		}
	})

	for _, kind := range []string{"http", "uring"} {
		t.Run("run "+kind, func(t *testing.T) {
			dir := t.TempDir()
			bucket := "kb-cli-" + kind
			stdout, stderr, code := katbenchEnv(t, dir, env, append([]string{"run", "embedded", "rest", "grpc",
				"--warehouse", "s3://" + bucket + "/wh", "--transport", kind}, bench...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, `created bucket "`+bucket+`"`) {
				t.Errorf("stderr does not say the bucket was created:\n%s", stderr)
			}
			lines := 0
			sc := bufio.NewScanner(strings.NewReader(stdout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var r results.Record
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				lines++
				if fb, ok := r.Params["transport_fallback"]; ok {
					testenv.Need(t, "transport "+kind, fmt.Errorf("fell back: %v", fb))
				}
				if r.Params["warehouse"] != "s3://"+bucket || r.Params["transport"] != kind || r.Errors != 0 || r.Ops == 0 {
					t.Errorf("%s %s: params %v, ops %d errors %d (%s)", r.Target, r.Scenario, r.Params, r.Ops, r.Errors, r.FirstError)
				}
				if strings.Contains(sc.Text(), st.SecretKey) {
					t.Errorf("a result line carries the secret key")
				}
			}
			if lines != 6 {
				t.Errorf("%d lines, want 6 (3 targets × 2 scenarios)", lines)
			}
			for _, target := range []string{"embedded", "rest", "grpc"} {
				n := 0
				for o := range admin.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: "wh/" + target + "/", Recursive: true}) {
					if o.Err != nil {
						t.Fatal(o.Err)
					}
					if strings.HasSuffix(o.Key, ".metadata.json") {
						n++
					}
				}
				if n < 10 { // 8 tables plus 5 creates and 5 commits
					t.Errorf("%s wrote %d metadata files under s3://%s/wh/%s/, want at least 10", target, n, bucket, target)
				}
			}
		})
	}

	t.Run("https with uring", func(t *testing.T) {
		dir := t.TempDir()
		https := strings.Replace(st.Endpoint, "http://", "https://", 1)
		_, stderr, code := katbenchEnv(t, dir, env, append([]string{"embedded", "--warehouse", "s3://tls/wh", "--s3-endpoint", https,
			"--transport", "uring", "--dir", filepath.Join(dir, "w")}, bench...)...)
		// versitygw here speaks plaintext, so the TLS check fails — after
		// the fallback to net/http was reported.
		if !strings.Contains(stderr, "warning: S3 transport uring unavailable, using http") || !strings.Contains(stderr, "https") {
			t.Errorf("no fallback warning:\n%s", stderr)
		}
		if code != 1 || !strings.Contains(stderr, https) {
			t.Fatalf("exit %d, stderr %q; want exit 1 naming %s", code, stderr, https)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("a failed check still wrote %v", entries)
		}
	})

	t.Run("serve rest vends", func(t *testing.T) {
		testServeRestVends(t, env, st)
	})
}

// testServeRestVends starts `serve rest` on an s3:// warehouse with
// --vend-storage-credentials and checks a client with no S3 settings of its
// own gets them, then stops it with SIGTERM.
func testServeRestVends(t *testing.T, env []string, st testenv.S3Env) {
	cmd := exec.Command(bin, "serve", "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(t.TempDir(), "cat"),
		"--warehouse", "s3://served/wh", "--transport", "http", "--vend-storage-credentials")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	re := regexp.MustCompile(`serving Iceberg REST at (\S+)`)
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("no address announced on stderr")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr); exited <- cmd.Wait() }()

	resp, err := http.Get(url + "/v1/config")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Defaults map[string]string }
	err = json.NewDecoder(resp.Body).Decode(&cfg)
	resp.Body.Close()
	if err != nil || cfg.Defaults["s3.endpoint"] != st.Endpoint || cfg.Defaults["s3.access-key-id"] != st.AccessKey || cfg.Defaults["warehouse"] != "s3://served/wh" {
		t.Fatalf("/v1/config defaults = %v (%v); want the endpoint, keys and warehouse", cfg.Defaults, err)
	}
	ctx := context.Background()
	cl, err := rest.NewCatalog(ctx, "served", url)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	tbl, err := cl.CreateTable(ctx, table.Identifier{"ns", "t"}, schema)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tbl.MetadataLocation(), "s3://served/wh/") {
		t.Errorf("metadata at %s, want under s3://served/wh/", tbl.MetadataLocation())
	}
	if _, err := tbl.FS(ctx); err != nil {
		t.Errorf("client table IO from vended settings: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("hang: serve did not exit after SIGTERM")
	}
}

// TestTransportWithoutS3Warns: a valid --transport without an s3://
// warehouse changes nothing, and the run says so.
func TestTransportWithoutS3Warns(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := katbench(t, dir, "embedded", "--peer", "", "--quick", "--tables", "4", "--ops", "20",
		"--scenario", "control.*", "--transport", "uring", "--history", "")
	if code != 0 || !strings.Contains(stderr, "--transport uring has no effect") {
		t.Fatalf("exit %d, stderr %q; want a run that warns --transport has no effect", code, stderr)
	}
}
