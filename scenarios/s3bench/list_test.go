package s3bench_test

import (
	"context"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// TestListOp: LIST against the control store measures one verified page
// of ListKeys keys per operation on every transport, and the run leaves
// none of its keys behind.
func TestListOp(t *testing.T) {
	ctl := startControl(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	cfg.Ops = []s3bench.Op{s3bench.List}
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run: %v", err)
	}
	seen := map[string]int{}
	for _, r := range got.Records {
		seen[r.Scenario]++
		if r.Ops != int64(cfg.Iterations) || r.Errors != 0 || r.FirstError != "" {
			t.Errorf("%s %s: ops %d errors %d (%s), want %d and none", r.Target, r.Scenario, r.Ops, r.Errors, r.FirstError, cfg.Iterations)
		}
		if r.Params["list_keys"] != s3bench.ListKeys || r.Params["op"] != "list" {
			t.Errorf("%s %s: params %v", r.Target, r.Scenario, r.Params)
		}
		if _, ok := r.MeasureValue("mib_s"); ok {
			t.Errorf("%s %s: a LIST moves no object bytes, yet has mib_s", r.Target, r.Scenario)
		}
	}
	lanes := len(transport.Names())
	if seen["s3.list.c1"] < 1 || seen["s3.list.c3"] < 1 || seen["s3.list.c1"] > lanes || len(seen) != 2 {
		t.Errorf("lines %v, want s3.list.c1 and s3.list.c3 once per transport", seen)
	}
	c, _, err := s3.NewClient(s3.Config{Endpoint: ctl.URL(), AccessKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for obj := range c.ListObjects(context.Background(), cfg.S3.Bucket, minio.ListObjectsOptions{Recursive: true}) {
		t.Errorf("left behind: %s (%v)", obj.Key, obj.Err)
	}
}
