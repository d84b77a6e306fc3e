package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/scenarios/s3bench"
)

// An S3 operation in one file: a GET of the first 100 bytes of an object
// of each --sizes, its length checked.

const (
	extOpName  s3bench.Op = "head100"
	extOpBytes            = 100
)

func init() {
	s3bench.Register(s3bench.Operation{
		Name: extOpName,
		Doc:  "GET of an object's first 100 bytes, length checked (a test extension)",
		Do: func(ctx context.Context, c *minio.Client, bucket, key string, size int64) error {
			want := min(size, extOpBytes)
			opts := minio.GetObjectOptions{}
			if err := opts.SetRange(0, want-1); err != nil {
				return err
			}
			obj, err := c.GetObject(ctx, bucket, key, opts)
			if err != nil {
				return fmt.Errorf("GET %s: %w", key, err)
			}
			defer obj.Close()
			n, err := io.Copy(io.Discard, obj)
			if err != nil {
				return fmt.Errorf("GET %s: %w", key, err)
			}
			if n != want {
				return fmt.Errorf("GET %s: %d bytes, want %d", key, n, want)
			}
			return nil
		},
		Params: func(size int64, p map[string]any) { p["ext_range_bytes"] = min(size, extOpBytes) },
	})
}

func TestExtS3Op(t *testing.T) {
	scenario := "s3." + string(extOpName)
	if list := extList(t); !strings.Contains(list, scenario+" ") || !strings.Contains(list, "first 100 bytes") {
		t.Errorf("list does not show %s with its description:\n%s", scenario, list)
	}
	stdout, stderr, code := katbenchExt(t, t.TempDir(), nil, "transport", "--quick", "--s3-ops", string(extOpName), "--sizes", "4KiB", "--concurrency", "1,2", "--transports", "http", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	seen := map[string]bool{}
	for _, l := range jsonLines(t, stdout) {
		name, _ := l["scenario"].(string)
		if !strings.HasPrefix(name, scenario+".") {
			continue
		}
		seen[name] = true
		wantMeasured(t, l)
		if l["target"] != "http" {
			t.Errorf("%s: target %v, want http", name, l["target"])
		}
		if params, _ := l["params"].(map[string]any); params["ext_range_bytes"] != float64(extOpBytes) || params["object_bytes"] != 4096.0 {
			t.Errorf("%s: params ext_range_bytes %v object_bytes %v, want %d and 4096", name, params["ext_range_bytes"], params["object_bytes"], extOpBytes)
		}
	}
	for _, want := range []string{scenario + ".4KiB.c1", scenario + ".4KiB.c2"} {
		if !seen[want] {
			t.Errorf("no line of %s (lines of the operation: %v)", want, seen)
		}
	}

	t.Run("misspelt", func(t *testing.T) {
		wantExtUsageError(t, nil, []string{"transport", "--quick", "--s3-ops", "head10"}, "head10", string(extOpName))
	})
}
