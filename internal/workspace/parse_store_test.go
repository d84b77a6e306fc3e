package workspace

import (
	"strings"
	"testing"

	"github.com/nordisk/katbench/transport/s3"
)

// TestParseStore: a blank warehouse takes the default, an s3:// one with
// no endpoint is the in-process control store, and bad values name their
// flag.
func TestParseStore(t *testing.T) {
	st, err := ParseStore(" ", "s3://katbench/data", s3.Config{}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if st.S3.Bucket != "katbench" || !strings.HasSuffix(st.Root.URI, "/run1") || st.S3.Endpoint != "" {
		t.Errorf("default store: bucket %q root %q endpoint %q", st.S3.Bucket, st.Root.URI, st.S3.Endpoint)
	}
	for _, c := range []struct {
		raw  string
		cfg  s3.Config
		want string
	}{
		{"gs://b/p", s3.Config{}, "--warehouse"},
		{"s3://katbench/x", s3.Config{Endpoint: "ftp://h:1", AccessKey: "a", SecretKey: "b"}, "--s3-endpoint"},
		{"s3://katbench/x", s3.Config{Endpoint: "http://127.0.0.1:9"}, "needs S3 keys"},
	} {
		if _, err := ParseStore(c.raw, "s3://katbench/data", c.cfg, "r"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseStore(%q, %+v) = %v, want an error naming %s", c.raw, c.cfg.Endpoint, err, c.want)
		}
	}
}
