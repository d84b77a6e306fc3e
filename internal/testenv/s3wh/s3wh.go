// Package s3wh gives tests an s3:// warehouse on a real store started for
// them. It is apart from testenv because it builds on the S3 IO, and the
// transport packages' own tests import testenv.
package s3wh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// Warehouse is an s3:// warehouse on a store started for a test: a fresh
// bucket, and the IO properties that reach it over one byte transport.
type Warehouse struct {
	// Root is "s3://<bucket>"; Next hands out fresh prefixes under it.
	Root string
	// Props are the IO properties (s3.endpoint, keys, region,
	// katbench.transport) for catalog.Options.IOProps.
	Props map[string]string
	// Store is how to reach the store itself.
	Store testenv.S3Env

	n atomic.Int64
}

// Next returns a fresh warehouse URI under Root, so every catalog of a test
// gets its own prefix. Safe for concurrent use.
func (w *Warehouse) Next() string { return fmt.Sprintf("%s/wh%d", w.Root, w.n.Add(1)) }

// Versitygw starts a versitygw for this test, makes a bucket on it
// and returns the warehouse reached over kind. A transport that falls back
// here (no io_uring) is a missing part: skipped locally, failed in CI.
func Versitygw(t testing.TB, kind transport.Kind) *Warehouse {
	t.Helper()
	env := testenv.Versitygw(t)
	c, _, err := s3.NewClient(s3.Config{Endpoint: env.Endpoint, AccessKey: env.AccessKey, SecretKey: env.SecretKey, Region: env.Region})
	if err != nil {
		t.Fatalf("S3 client for %s: %v", env.Endpoint, err)
	}
	var raw [4]byte
	_, _ = rand.Read(raw[:])
	bucket := "katbench-wh-" + hex.EncodeToString(raw[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", bucket, err)
	}
	props := map[string]string{
		icebergio.S3EndpointURL:     env.Endpoint,
		icebergio.S3AccessKeyID:     env.AccessKey,
		icebergio.S3SecretAccessKey: env.SecretKey,
		icebergio.S3Region:          env.Region,
		s3io.PropTransport:          string(kind),
	}
	f, err := s3io.New(props)
	if err != nil {
		t.Fatalf("S3 IO: %v", err)
	}
	if used, fb := f.Transport(); used != kind {
		testenv.Need(t, "transport "+string(kind), fmt.Errorf("fell back to %s: %s", used, fb))
	}
	return &Warehouse{Root: "s3://" + bucket, Props: props, Store: env}
}
