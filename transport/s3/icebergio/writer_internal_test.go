package icebergio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/transport/s3"
)

// TestWriterMemoryBound: however large the file, the writer holds at most
// two parts (the one filling, the one uploading), and the bytes arrive.
func TestWriterMemoryBound(t *testing.T) {
	c, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	f, err := New(map[string]string{
		icebergio.S3EndpointURL: c.URL(), icebergio.S3AccessKeyID: "a", icebergio.S3SecretAccessKey: "b",
		PropTransport: "http",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.MakeBucket(context.Background(), "mem", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	fw, err := f.Create("s3://mem/big")
	if err != nil {
		t.Fatal(err)
	}
	w := fw.(*writer)
	const total = 6*DefaultPartSize + 12345
	chunk := bytes.Repeat([]byte{0}, 1<<20)
	var want []byte
	for i := 0; len(want) < total; i++ {
		n := min(len(chunk), total-len(want))
		for j := range n {
			chunk[j] = byte(i + j)
		}
		if _, err := w.Write(chunk[:n]); err != nil {
			t.Fatal(err)
		}
		want = append(want, chunk[:n]...)
		if held := cap(w.buf) + cap(w.upBuf); held > 2*DefaultPartSize {
			t.Fatalf("after %d bytes the writer holds %d bytes, more than two parts (%d)", len(want), held, 2*DefaultPartSize)
		}
	}
	if len(w.parts) < 4 {
		t.Fatalf("%d parts sent before Close, want them streamed as the file grows", len(w.parts))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadFile("s3://mem/big")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadFile: %d bytes, %v; want the %d written", len(got), err, len(want))
	}
}

// TestWritersShareNoBuffer: part buffers are pooled across writers; many
// concurrent multipart files must still each come back exactly as written.
func TestWritersShareNoBuffer(t *testing.T) {
	c, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	f, err := New(map[string]string{
		icebergio.S3EndpointURL: c.URL(), icebergio.S3AccessKeyID: "a", icebergio.S3SecretAccessKey: "b",
		PropTransport: "http",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.MakeBucket(context.Background(), "pool", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	const writers, files = 4, 3
	errs := make(chan error, writers)
	for g := range writers {
		go func() {
			for i := range files {
				name := fmt.Sprintf("s3://pool/g%d/f%d", g, i)
				want := bytes.Repeat([]byte{byte(g*files + i + 1)}, 2*DefaultPartSize+g*1000+i)
				w, err := f.Create(name)
				if err == nil {
					_, err = w.Write(want)
					err = errors.Join(err, w.Close())
				}
				if err != nil {
					errs <- err
					return
				}
				got, err := f.ReadFile(name)
				if err != nil || !bytes.Equal(got, want) {
					errs <- fmt.Errorf("%s: %d bytes back (%v), want %d identical", name, len(got), err, len(want))
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
