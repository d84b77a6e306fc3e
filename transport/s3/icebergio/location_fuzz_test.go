package icebergio

import (
	"strings"
	"testing"
)

// FuzzParseLocation: locations come from table metadata and REST clients.
// Parsing never panics; an accepted object location names a bucket and a
// key and prints back as it was given (modulo the scheme's case); an
// accepted warehouse has a bucket S3 would allow.
func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{"s3://b/k", "s3a://bucket/a/b/c.parquet", "S3://b/k%2F?x#y", "s3://", "s3:///k", "gs://b/k", "/tmp/x", "s3://b/", "s3://b//k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseObject(s)
		if err == nil {
			if l.bucket == "" || l.key == "" || strings.Contains(l.bucket, "/") {
				t.Fatalf("parseObject(%q) = %+v", s, l)
			}
			scheme, rest, _ := strings.Cut(s, "://")
			if got := l.String(); got != strings.ToLower(scheme)+"://"+rest {
				t.Fatalf("parseObject(%q).String() = %q", s, got)
			}
		}
		if b, err := ParseWarehouse(s); err == nil && (len(b) < 3 || len(b) > 63 || strings.ContainsAny(b, "/_ ")) {
			t.Fatalf("ParseWarehouse(%q) accepted bucket %q", s, b)
		}
	})
}
