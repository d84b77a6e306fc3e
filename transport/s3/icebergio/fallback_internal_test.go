package icebergio

import (
	"testing"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/nordisk/katbench/transport/s3"
)

// A fallback fills only what the properties leave out.
func TestFallbacksFillOnlyWhatIsMissing(t *testing.T) {
	fb := Fallbacks(s3.Config{Endpoint: "http://127.0.0.1:7070", AccessKey: "env-id", SecretKey: "env-secret"})
	if _, ok := fb[PropFallbackPrefix+icebergio.S3Region]; ok || len(fb) != 3 {
		t.Fatalf("Fallbacks = %v: want the three set values only", fb)
	}
	props := map[string]string{icebergio.S3EndpointURL: "http://127.0.0.1:9000", icebergio.S3AccessKeyID: "table-id"}
	for k, v := range fb {
		props[k] = v
	}
	st, err := parseSettings(props)
	if err != nil {
		t.Fatal(err)
	}
	k := st.key
	if k.endpoint != "http://127.0.0.1:9000" || k.accessKey != "table-id" || k.secretKey != "env-secret" || k.region != s3.DefaultRegion {
		t.Fatalf("settings %+v: the table's endpoint and key id, the fallback's secret, the default region", k)
	}
	if _, err := parseSettings(map[string]string{icebergio.S3AccessKeyID: "id"}); err != ErrNoEndpoint {
		t.Fatalf("no endpoint and no fallback: %v, want ErrNoEndpoint", err)
	}
}
