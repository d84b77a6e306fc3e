package workspace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// TestStoreControl: with no endpoint the store starts the in-process
// control store, creates the bucket, scopes its IO clients to the run and
// says what it is.
func TestStoreControl(t *testing.T) {
	w, err := Parse("s3://bench/data")
	if err != nil {
		t.Fatal(err)
	}
	st := NewStore(w, "r1", s3.Config{Region: "us-east-1"})
	if err := st.Open(context.Background(), os.Stderr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if st.Kind() != "in-process control" || !st.InProcess() || st.Name() != "control" || st.EndpointShown() != "" {
		t.Errorf("kind %q in-process %v name %q endpoint %q", st.Kind(), st.InProcess(), st.Name(), st.EndpointShown())
	}
	p := st.IOProps(transport.Baseline())
	if p[s3io.PropScope] != "s3://bench/data/r1" || p[s3io.PropTransport] != string(transport.Baseline()) {
		t.Errorf("IOProps %v", p)
	}
	c, _, err := s3.NewClient(st.S3)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.BucketExists(context.Background(), "bench"); err != nil || !ok {
		t.Fatalf("bucket bench: %v %v, want created", ok, err)
	}
}

// TestStoreRemoveRun: RemoveRun of a file:// store removes the run's
// directory and nothing beside it; RemovePrefix removes only the prefix.
func TestStoreRemoveRun(t *testing.T) {
	dir := t.TempDir()
	w, err := Parse("file://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	st := NewStore(w, "r1", s3.Config{})
	if err := os.MkdirAll(filepath.Join(st.Root.Dir, "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveRun(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Root.Dir); !os.IsNotExist(err) {
		t.Errorf("run dir still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other")); err != nil {
		t.Errorf("removed beside the run: %v", err)
	}

	ctl, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctl.Close() })
	c, _, err := s3.NewClient(s3.Config{Endpoint: ctl.URL(), AccessKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.MakeBucket(ctx, "bkt", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"run/a", "run/b/c", "keep/x"} {
		if _, err := c.PutObject(ctx, "bkt", k, bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemovePrefix(ctx, c, "bkt", "run/"); err != nil {
		t.Fatal(err)
	}
	var left []string
	for obj := range c.ListObjects(ctx, "bkt", minio.ListObjectsOptions{Recursive: true}) {
		left = append(left, obj.Key)
	}
	if len(left) != 1 || left[0] != "keep/x" {
		t.Errorf("left %v, want only keep/x", left)
	}
}
