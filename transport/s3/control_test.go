package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/transport/s3"
)

// TestControlS3Semantics checks the parts of S3 the bench and its cleanup
// rely on, through minio-go: bucket create/exists/delete, errors with the
// right codes, paged listing, delete, unsatisfiable ranges.
func TestControlS3Semantics(t *testing.T) {
	st := control(t)
	c := newClient(t, st, "http")
	ctx := context.Background()

	if ok, err := c.BucketExists(ctx, "bkt"); err != nil || ok {
		t.Fatalf("BucketExists before create = %v, %v; want false", ok, err)
	}
	if err := c.MakeBucket(ctx, "bkt", minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket: %v", err)
	}
	if ok, err := c.BucketExists(ctx, "bkt"); err != nil || !ok {
		t.Fatalf("BucketExists after create = %v, %v; want true", ok, err)
	}
	err := c.MakeBucket(ctx, "bkt", minio.MakeBucketOptions{})
	if code := minio.ToErrorResponse(err).Code; code != "BucketAlreadyOwnedByYou" {
		t.Fatalf("second MakeBucket: %v (code %q), want BucketAlreadyOwnedByYou", err, code)
	}

	_, err = c.StatObject(ctx, "bkt", "missing", minio.StatObjectOptions{})
	if resp := minio.ToErrorResponse(err); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("HEAD missing: %v, want 404", err)
	}
	_, _, _, err = minio.Core{Client: c}.GetObject(ctx, "bkt", "missing", minio.GetObjectOptions{})
	if code := minio.ToErrorResponse(err).Code; code != "NoSuchKey" {
		t.Fatalf("GET missing: %v (code %q), want NoSuchKey", err, code)
	}
	_, err = c.PutObject(ctx, "nobucket", "k", bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{})
	if code := minio.ToErrorResponse(err).Code; code != "NoSuchBucket" {
		t.Fatalf("PUT into a missing bucket: %v (code %q), want NoSuchBucket", err, code)
	}

	var want []string
	for i := range 7 {
		key := fmt.Sprintf("dir/k%02d", i)
		want = append(want, key)
		if _, err := c.PutObject(ctx, "bkt", key, strings.NewReader(key), int64(len(key)), minio.PutObjectOptions{}); err != nil {
			t.Fatalf("PUT %s: %v", key, err)
		}
	}
	if _, err := c.PutObject(ctx, "bkt", "other", strings.NewReader("o"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, v1 := range []bool{false, true} {
		var got []string
		for obj := range c.ListObjects(ctx, "bkt", minio.ListObjectsOptions{Prefix: "dir/", Recursive: true, MaxKeys: 3, UseV1: v1}) {
			if obj.Err != nil {
				t.Fatalf("list (v1=%v): %v", v1, obj.Err)
			}
			if obj.Size != int64(len(obj.Key)) {
				t.Fatalf("list (v1=%v): %s has size %d", v1, obj.Key, obj.Size)
			}
			got = append(got, obj.Key)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("paged list (v1=%v) = %v, want %v", v1, got, want)
		}
	}
	var top []string
	for obj := range c.ListObjects(ctx, "bkt", minio.ListObjectsOptions{}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		top = append(top, obj.Key)
	}
	slices.Sort(top) // minio-go yields a page's contents before its prefixes
	if !slices.Equal(top, []string{"dir/", "other"}) {
		t.Fatalf("delimited list = %v, want [dir/ other]", top)
	}

	var o minio.GetObjectOptions
	_ = o.SetRange(100, 200)
	_, _, _, err = minio.Core{Client: c}.GetObject(ctx, "bkt", "other", o)
	if resp := minio.ToErrorResponse(err); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("range past the end: %v, want 416", err)
	}

	if err := c.RemoveBucket(ctx, "bkt"); minio.ToErrorResponse(err).Code != "BucketNotEmpty" {
		t.Fatalf("RemoveBucket of a full bucket: %v, want BucketNotEmpty", err)
	}
	for _, k := range append(want, "other") {
		if err := c.RemoveObject(ctx, "bkt", k, minio.RemoveObjectOptions{}); err != nil {
			t.Fatalf("remove %s: %v", k, err)
		}
	}
	if _, err := c.StatObject(ctx, "bkt", "other", minio.StatObjectOptions{}); minio.ToErrorResponse(err).StatusCode != http.StatusNotFound {
		t.Fatalf("HEAD after delete: %v, want 404", err)
	}
	if err := c.RemoveBucket(ctx, "bkt"); err != nil {
		t.Fatalf("RemoveBucket: %v", err)
	}
}

// TestControlCloseStops: after Close the port no longer answers and a
// second Close is harmless.
func TestControlCloseStops(t *testing.T) {
	c, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(c.URL() + "/")
	if err != nil {
		t.Fatalf("GET / before Close: %v", err)
	}
	resp.Body.Close()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := cl.Get(c.URL() + "/"); err == nil {
		resp.Body.Close()
		t.Fatal("control still answers after Close")
	}
}

func TestParseRangeRejects(t *testing.T) {
	st := control(t)
	c := newClient(t, st, "http")
	ctx := context.Background()
	if err := c.MakeBucket(ctx, "rng", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, "rng", "k", strings.NewReader("0123456789"), 10, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rng    string
		status int
		body   string
	}{
		{"bytes=2-4", 206, "234"},
		{"bytes=7-", 206, "789"},
		{"bytes=-3", 206, "789"},
		{"bytes=-30", 206, "0123456789"},
		{"bytes=5-100", 206, "56789"},
		{"bytes=10-", 416, ""},
		{"bytes=4-2", 416, ""},
		{"bytes=0-1,3-4", 416, ""},
		{"items=0-1", 416, ""},
		{"bytes=x-1", 416, ""},
	} {
		req, _ := http.NewRequest(http.MethodGet, st.Endpoint+"/rng/k", nil)
		req.Header.Set("Range", tc.rng)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("Range %q: status %d, want %d", tc.rng, resp.StatusCode, tc.status)
			continue
		}
		if tc.status == 206 && buf.String() != tc.body {
			t.Errorf("Range %q: body %q, want %q", tc.rng, buf.String(), tc.body)
		}
	}
}

// TestControlMultipart: the control's multipart upload follows S3's rules
// on completion (parts exist with their ETags, ascending, all but the last
// at least 5 MiB) and an abort leaves nothing.
func TestControlMultipart(t *testing.T) {
	st := control(t)
	c := minio.Core{Client: newClient(t, st, "http")}
	ctx := context.Background()
	if err := c.MakeBucket(ctx, "mpu", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("a"), 5<<20)
	upload := func(t *testing.T, key string, parts ...[]byte) (string, []minio.CompletePart) {
		t.Helper()
		id, err := c.NewMultipartUpload(ctx, "mpu", key, minio.PutObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var done []minio.CompletePart
		for i, p := range parts {
			op, err := c.PutObjectPart(ctx, "mpu", key, id, i+1, bytes.NewReader(p), int64(len(p)), minio.PutObjectPartOptions{})
			if err != nil {
				t.Fatal(err)
			}
			done = append(done, minio.CompletePart{PartNumber: i + 1, ETag: op.ETag})
		}
		return id, done
	}
	t.Run("ok", func(t *testing.T) {
		id, parts := upload(t, "ok", big, []byte("tail"))
		if _, err := c.CompleteMultipartUpload(ctx, "mpu", "ok", id, parts, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
		got := getAll(ctx, t, c.Client, "mpu", "ok", minio.GetObjectOptions{})
		if !bytes.Equal(got, append(append([]byte{}, big...), "tail"...)) {
			t.Fatalf("completed object: %d bytes, want %d", len(got), len(big)+4)
		}
	})
	bad := []struct {
		name  string
		parts [][]byte
		edit  func([]minio.CompletePart) []minio.CompletePart
		code  string
	}{
		{"small first part", [][]byte{[]byte("x"), []byte("y")}, nil, "EntityTooSmall"},
		{"wrong etag", [][]byte{big}, func(p []minio.CompletePart) []minio.CompletePart { p[0].ETag = "nope"; return p }, "InvalidPart"},
		{"descending", [][]byte{big, big}, func(p []minio.CompletePart) []minio.CompletePart { p[0], p[1] = p[1], p[0]; return p }, "InvalidPartOrder"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			id, parts := upload(t, "bad", tc.parts...)
			if tc.edit != nil {
				parts = tc.edit(parts)
			}
			_, err := c.CompleteMultipartUpload(ctx, "mpu", "bad", id, parts, minio.PutObjectOptions{})
			if got := minio.ToErrorResponse(err).Code; got != tc.code {
				t.Fatalf("Complete: %v (code %q), want %s", err, got, tc.code)
			}
			if err := c.AbortMultipartUpload(ctx, "mpu", "bad", id); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			if _, err := c.StatObject(ctx, "mpu", "bad", minio.StatObjectOptions{}); minio.ToErrorResponse(err).Code != "NoSuchKey" {
				t.Fatalf("object after a failed upload: %v, want NoSuchKey", err)
			}
			if err := c.AbortMultipartUpload(ctx, "mpu", "bad", id); minio.ToErrorResponse(err).Code != "NoSuchUpload" {
				t.Fatalf("second Abort: %v, want NoSuchUpload", err)
			}
		})
	}
}
