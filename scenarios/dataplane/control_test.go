package dataplane

import (
	"context"
	"strings"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// TestRunOnControlStore runs the whole pipeline on an s3:// warehouse on
// the in-process control S3 store, one lane per transport, each lane an
// embedded catalog whose metadata, manifests and Parquet files all travel
// over that lane's transport.
func TestRunOnControlStore(t *testing.T) {
	ctl, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctl.Close() })
	t.Cleanup(s3io.CloseIdle)
	ctx := context.Background()
	props := func(tr string) map[string]string {
		return map[string]string{
			icebergio.S3EndpointURL: ctl.URL(), icebergio.S3AccessKeyID: "k", icebergio.S3SecretAccessKey: "s",
			icebergio.S3Region: "us-east-1", s3io.PropTransport: tr,
		}
	}
	fsys, err := s3io.New(props("http"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.EnsureBucket(ctx, "dpbucket"); err != nil {
		t.Fatal(err)
	}
	var lanes []Lane
	for _, tr := range []string{"http", "uring"} {
		lfs, err := s3io.New(props(tr))
		if err != nil {
			t.Fatal(err)
		}
		used, fallback := lfs.Transport()
		if fallback != "" && tr == "uring" {
			t.Logf("io_uring unavailable (%s): the lane runs on %s", fallback, used)
		}
		cat, err := catalog.Open(ctx, catalog.Options{
			Dir: t.TempDir(), Durability: catalog.None, Warehouse: "s3://dpbucket/" + tr, IOProps: props(tr),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cat.Close() })
		lanes = append(lanes, Lane{Target: "embedded", Transport: tr, Requested: tr, Fallback: fallback, Catalog: cat})
	}
	cfg := smallConfig()
	cfg.Warehouse = "s3://dpbucket"
	var coll results.Collector
	if err := Run(ctx, cfg, lanes, &coll); err != nil {
		t.Fatal(err)
	}
	recs := coll.Snapshot()
	if len(recs) != 6 {
		t.Fatalf("%d lines, want 6", len(recs))
	}
	for _, r := range recs {
		if r.Errors != 0 || r.Ops == 0 || r.Params["warehouse"] != "s3://dpbucket" {
			t.Errorf("%s/%s: ops %d errors %d warehouse %v (%s)", r.Transport, r.Scenario, r.Ops, r.Errors, r.Params["warehouse"], r.FirstError)
		}
		if r.Scenario == ScanName && (r.Measures["checksum_ok"].Value != 1 || r.Params["rows_total"] != int64(80_000)) {
			t.Errorf("%s scan: checksum_ok %v rows_total %v", r.Transport, r.Measures["checksum_ok"], r.Params["rows_total"])
		}
	}
	// The Parquet files are on the store, under each lane's warehouse.
	mc, info, err := s3.NewClient(s3.Config{Endpoint: ctl.URL(), Bucket: "dpbucket", AccessKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer info.CloseIdle()
	for _, tr := range []string{"http", "uring"} {
		n := 0
		for obj := range mc.ListObjects(ctx, "dpbucket", minio.ListObjectsOptions{Prefix: tr + "/", Recursive: true}) {
			if obj.Err != nil {
				t.Fatal(obj.Err)
			}
			if strings.HasSuffix(obj.Key, ".parquet") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no Parquet files under s3://dpbucket/%s/", tr)
		}
	}
}
