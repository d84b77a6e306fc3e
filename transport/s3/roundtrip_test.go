package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

var kinds = []transport.Kind{"http", "uring"}

// sizes are the payloads every round trip covers.
var sizes = []int{0, 1, 4 << 10, 1<<20 + 7, 8 << 20}

// newClient returns a client for st over kind; a transport that is not
// really available here (fallback) is a missing part, not a pass.
func newClient(t *testing.T, st testenv.S3Env, kind transport.Kind) *minio.Client {
	t.Helper()
	c, info, err := s3.NewClient(s3.Config{
		Endpoint: st.Endpoint, Bucket: "unused", AccessKey: st.AccessKey, SecretKey: st.SecretKey,
		Region: st.Region, Transport: kind, PoolSize: 4,
	})
	if err != nil {
		t.Fatalf("NewClient(%s): %v", kind, err)
	}
	if info.Used != kind {
		testenv.Need(t, "transport "+string(kind), fmt.Errorf("fell back to %s: %s", info.Used, info.Fallback))
	}
	if info.Fallback != "" {
		t.Fatalf("NewClient(%s): used %s but reports fallback %q", kind, info.Used, info.Fallback)
	}
	return c
}

func control(t *testing.T) testenv.S3Env {
	t.Helper()
	c, err := s3.StartControl()
	if err != nil {
		t.Fatalf("StartControl: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("control Close: %v", err)
		}
	})
	return testenv.S3Env{Endpoint: c.URL(), AccessKey: "any", SecretKey: "thing", Region: "us-east-1"}
}

func TestRoundTripControl(t *testing.T)   { testRoundTrips(t, control(t)) }
func TestRoundTripVersitygw(t *testing.T) { testRoundTrips(t, testenv.Versitygw(t)) }
func TestRoundTripRustFS(t *testing.T)    { testRoundTrips(t, testenv.RustFS(t)) }

// testRoundTrips writes each payload through one transport and reads it back
// through every transport: bytes identical, HEAD metadata identical across
// transports and matching the payload, ranged GETs exact.
func testRoundTrips(t *testing.T, st testenv.S3Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	clients := map[transport.Kind]*minio.Client{}
	for _, k := range kinds {
		clients[k] = newClient(t, st, k)
	}
	bucket := "katbench-rt-" + randHex(t, 4)
	if err := clients["http"].MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket: %v", err)
	}
	t.Cleanup(func() { removeBucket(t, clients["http"], bucket) })

	for _, size := range sizes {
		payload := make([]byte, size)
		if _, err := rand.Read(payload); err != nil {
			t.Fatal(err)
		}
		sum := md5.Sum(payload)
		wantETag := hex.EncodeToString(sum[:])
		for _, writer := range kinds {
			for _, signed := range []bool{true, false} {
				key := fmt.Sprintf("obj-%d-%s-signed-%v", size, writer, signed)
				t.Run(key, func(t *testing.T) {
					opts := minio.PutObjectOptions{DisableContentSha256: !signed}
					info, err := clients[writer].PutObject(ctx, bucket, key, bytes.NewReader(payload), int64(size), opts)
					if err != nil {
						t.Fatalf("PUT via %s: %v", writer, err)
					}
					if info.Size != int64(size) {
						t.Fatalf("PUT via %s: size %d, want %d", writer, info.Size, size)
					}
					var first *minio.ObjectInfo
					for _, reader := range kinds {
						c := clients[reader]
						got := getAll(ctx, t, c, bucket, key, minio.GetObjectOptions{})
						if !bytes.Equal(got, payload) {
							t.Fatalf("GET via %s after PUT via %s: %d bytes differ from the %d written", reader, writer, len(got), size)
						}
						oi, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
						if err != nil {
							t.Fatalf("HEAD via %s: %v", reader, err)
						}
						if oi.Size != int64(size) || oi.ETag != wantETag {
							t.Fatalf("HEAD via %s: size %d etag %s, want %d %s", reader, oi.Size, oi.ETag, size, wantETag)
						}
						if first == nil {
							first = &oi
						} else if oi.Size != first.Size || oi.ETag != first.ETag || !oi.LastModified.Equal(first.LastModified) || oi.ContentType != first.ContentType {
							t.Fatalf("HEAD differs between transports: %s %+v vs %s %+v", kinds[0], *first, reader, oi)
						}
						for _, r := range ranges(size) {
							var o minio.GetObjectOptions
							if err := o.SetRange(r[0], r[1]); err != nil {
								t.Fatal(err)
							}
							got := getAll(ctx, t, c, bucket, key, o)
							want := payload[r[0] : r[1]+1]
							if !bytes.Equal(got, want) {
								t.Fatalf("ranged GET %d-%d via %s: got %d bytes, want %d equal bytes", r[0], r[1], reader, len(got), len(want))
							}
						}
					}
				})
			}
		}
	}
}

// ranges returns inclusive byte ranges to check on an object of size bytes.
func ranges(size int) [][2]int64 {
	switch {
	case size == 0:
		return nil
	case size == 1:
		return [][2]int64{{0, 0}}
	default:
		n := int64(size)
		return [][2]int64{{0, 0}, {1, n / 2}, {n / 3, n - 1}, {n - 1, n - 1}}
	}
}

// versitygwParseError is versitygw's answer to a request it cannot parse.
const versitygwParseError = "An error occurred when parsing the HTTP request"

func getAll(ctx context.Context, t *testing.T, c *minio.Client, bucket, key string, o minio.GetObjectOptions) []byte {
	t.Helper()
	body, _, _, err := minio.Core{Client: c}.GetObject(ctx, bucket, key, o)
	if err != nil && strings.Contains(err.Error(), versitygwParseError) {
		// versitygw (fasthttp) now and then fails to parse the request that
		// follows a zero-length aws-chunked PUT on the same keep-alive
		// connection: the PUT's final chunk, when it arrives in its own
		// segment, is left unread and parsed as the next request. It
		// closes that connection, so one retry is on a fresh one. Seen
		// on both transports, about once in ten runs; ours is not involved.
		t.Logf("GET %s: %v (versitygw's unread zero-length chunk; retrying once)", key, err)
		body, _, _, err = minio.Core{Client: c}.GetObject(ctx, bucket, key, o)
	}
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("GET %s: read: %v", key, err)
	}
	return b
}

func removeBucket(t *testing.T, c *minio.Client, bucket string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for obj := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Errorf("list %s: %v", bucket, obj.Err)
			return
		}
		if err := c.RemoveObject(ctx, bucket, obj.Key, minio.RemoveObjectOptions{}); err != nil {
			t.Errorf("remove %s: %v", obj.Key, err)
		}
	}
	if err := c.RemoveBucket(ctx, bucket); err != nil {
		t.Errorf("remove bucket %s: %v", bucket, err)
	}
}

func randHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// TestFallbackForced: with io_uring setup forced to fail, asking for uring
// reports the fallback and the client still works, over net/http.
func TestFallbackForced(t *testing.T) {
	st := control(t)
	c, info, err := s3.NewClient(s3.Config{
		Endpoint: st.Endpoint, Bucket: "b", AccessKey: "k", SecretKey: "s", Transport: "uring",
		TransportSettings: transport.Settings{"uring.force-fail": "1"},
	})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if info.Used != "http" {
		t.Fatalf("used %q, want http", info.Used)
	}
	if len(info.Fallback) < len("uring: ")+1 || info.Fallback[:len("uring: ")] != "uring: " {
		t.Fatalf("fallback %q, want \"uring: <reason>\"", info.Fallback)
	}
	ctx := context.Background()
	if err := c.MakeBucket(ctx, "fallback", minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket over the fallback: %v", err)
	}
	if _, err := c.PutObject(ctx, "fallback", "k", bytes.NewReader([]byte("hello")), 5, minio.PutObjectOptions{}); err != nil {
		t.Fatalf("PUT over the fallback: %v", err)
	}
	if got := getAll(ctx, t, c, "fallback", "k", minio.GetObjectOptions{}); string(got) != "hello" {
		t.Fatalf("GET over the fallback: %q", got)
	}
}

func TestNewClientBadConfig(t *testing.T) {
	good := s3.Config{Endpoint: "http://127.0.0.1:9", Bucket: "b", AccessKey: "k", SecretKey: "s"}
	tests := []struct {
		name string
		edit func(*s3.Config)
		want error
	}{
		{"no scheme", func(c *s3.Config) { c.Endpoint = "127.0.0.1:7070" }, s3.ErrBadEndpoint},
		{"ftp", func(c *s3.Config) { c.Endpoint = "ftp://127.0.0.1:7070" }, s3.ErrBadEndpoint},
		{"empty", func(c *s3.Config) { c.Endpoint = "" }, s3.ErrBadEndpoint},
		{"no host", func(c *s3.Config) { c.Endpoint = "http://:7070" }, s3.ErrBadEndpoint},
		{"path", func(c *s3.Config) { c.Endpoint = "http://127.0.0.1:7070/bucket" }, s3.ErrBadEndpoint},
		{"bad port", func(c *s3.Config) { c.Endpoint = "http://127.0.0.1:99999" }, s3.ErrBadEndpoint},
		{"no keys", func(c *s3.Config) { c.AccessKey = "" }, nil},
		{"bad transport", func(c *s3.Config) { c.Transport = "carrier-pigeon" }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			c, _, err := s3.NewClient(cfg)
			if err == nil || c != nil {
				t.Fatalf("NewClient(%+v) = %v, %v; want an error", cfg, c, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	if _, _, err := s3.NewClient(good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	// A client does not need a bucket (requests name theirs); Validate,
	// for callers that work in one bucket, still does.
	noBucket := good
	noBucket.Bucket = ""
	if _, _, err := s3.NewClient(noBucket); err != nil {
		t.Fatalf("NewClient without a bucket: %v", err)
	}
	if err := noBucket.Validate(); err == nil {
		t.Fatal("Validate without a bucket: no error")
	}
}
