package workspace

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := []struct {
		in   string
		want Warehouse
	}{
		{"", Warehouse{}},
		{"file:///tmp/wh/", Warehouse{URI: "file:///tmp/wh", Dir: "/tmp/wh"}},
		{"file://localhost/tmp/wh", Warehouse{URI: "file://localhost/tmp/wh", Dir: "/tmp/wh"}},
		{"s3://bench", Warehouse{URI: "s3://bench", S3: true, Bucket: "bench"}},
		{" s3a://bench/a/b/ ", Warehouse{URI: "s3a://bench/a/b", S3: true, Bucket: "bench", Prefix: "a/b"}},
	}
	for _, tc := range good {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct{ in, want string }{
		{"  ", "empty"},
		{"bench/wh", "want file:///abs/path or s3://bucket/prefix"},
		{"ftp://bench/wh", "want file or s3"},
		{"file://rel/wh", "file:///absolute/path"},
		{"file:///tmp/wh?x=1", "file:///absolute/path"},
		{"s3:///wh", "no bucket"},
		{"s3://Bad_Bucket/wh", "Bad_Bucket"},
	}
	for _, tc := range bad {
		_, err := Parse(tc.in)
		if !errors.Is(err, ErrBadWarehouse) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want ErrBadWarehouse mentioning %q", tc.in, err, tc.want)
		}
	}
}

func TestRunAndSub(t *testing.T) {
	w, err := Parse("s3://bench/data")
	if err != nil {
		t.Fatal(err)
	}
	r := w.Run("r1")
	if r.URI != "s3://bench/data/r1" || r.Prefix != "data/r1" || r.Bucket != "bench" || r.Shown() != "s3://bench" {
		t.Errorf("Run = %+v shown %q", r, r.Shown())
	}
	if got := r.Sub("0-embedded-http"); got != "s3://bench/data/r1/0-embedded-http" {
		t.Errorf("Sub = %q", got)
	}
	root, _ := Parse("s3://bench")
	if got := root.Run("r1").Prefix; got != "r1" {
		t.Errorf("prefix at the bucket's root = %q, want r1", got)
	}
	f, _ := Parse("file:///tmp/wh")
	if fr := f.Run("r1"); fr.Dir != "/tmp/wh/r1" || fr.URI != "file:///tmp/wh/r1" || fr.Shown() != "file" {
		t.Errorf("file Run = %+v", fr)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"s3://b/p", "file:///x", "s3a://bb/", "file://h/x", "gs://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrBadWarehouse) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrBadWarehouse", s, err)
			}
			return
		}
		if w.S3 && w.Bucket == "" || !w.S3 && w.URI != "" && w.Dir == "" {
			t.Fatalf("Parse(%q) = %+v: incomplete", s, w)
		}
	})
}
