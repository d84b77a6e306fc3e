package icebergio_test

import (
	"context"
	"fmt"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// BenchmarkIO measures the IO's calls against the in-process control store
// over both transports: metadata-sized whole-file writes and reads, a
// Parquet-like ranged read, and a streamed multipart write.
//
//	go test -run '^$' -bench IO -benchmem ./transport/s3/icebergio/
func BenchmarkIO(b *testing.B) {
	c, err := s3.StartControl()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	env := testenv.S3Env{Endpoint: c.URL(), AccessKey: "a", SecretKey: "b", Region: "us-east-1"}
	for _, kind := range []transport.Kind{transport.HTTP, transport.Uring} {
		f, err := s3io.New(map[string]string{
			icebergio.S3EndpointURL: env.Endpoint, icebergio.S3AccessKeyID: env.AccessKey,
			icebergio.S3SecretAccessKey: env.SecretKey, s3io.PropTransport: string(kind),
		})
		if err != nil {
			b.Fatal(err)
		}
		if used, fb := f.Transport(); used != kind {
			b.Skipf("transport %s fell back: %s", kind, fb)
		}
		bucket := "bench-" + string(kind)
		cl, _, _ := s3.NewClient(s3.Config{Endpoint: env.Endpoint, AccessKey: "a", SecretKey: "b"})
		if err := cl.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{}); err != nil {
			b.Fatal(err)
		}
		small := make([]byte, 4<<10)
		big := make([]byte, 16<<20)
		name := func(s string) string { return "s3://" + bucket + "/" + s }
		if err := f.WriteFile(name("small"), small); err != nil {
			b.Fatal(err)
		}
		if err := f.WriteFile(name("big"), big); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/WriteFile4KiB", kind), func(b *testing.B) {
			b.SetBytes(int64(len(small)))
			for b.Loop() {
				if err := f.WriteFile(name("w"), small); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%s/ReadFile4KiB", kind), func(b *testing.B) {
			b.SetBytes(int64(len(small)))
			for b.Loop() {
				if _, err := f.ReadFile(name("small")); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%s/ReadAt64KiB", kind), func(b *testing.B) {
			file, err := f.Open(name("big"))
			if err != nil {
				b.Fatal(err)
			}
			defer file.Close()
			buf := make([]byte, 64<<10)
			b.SetBytes(int64(len(buf)))
			off := int64(0)
			for b.Loop() {
				if _, err := file.ReadAt(buf, off); err != nil {
					b.Fatal(err)
				}
				off = (off + 1<<20) % (int64(len(big)) - int64(len(buf)))
			}
		})
		b.Run(fmt.Sprintf("%s/Create16MiB", kind), func(b *testing.B) {
			b.SetBytes(int64(len(big)))
			for b.Loop() {
				w, err := f.Create(name("stream"))
				if err != nil {
					b.Fatal(err)
				}
				for p := big; len(p) > 0; p = p[1<<20:] {
					if _, err := w.Write(p[:1<<20]); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
