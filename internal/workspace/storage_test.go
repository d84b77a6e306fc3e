package workspace

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/nordisk/katbench/transport"
)

// TestStorageSettingsResolveBadInput: every bad flag or variable is
// ErrSettings with a message naming it, found before any I/O (no endpoint
// here listens).
func TestStorageSettingsResolveBadInput(t *testing.T) {
	keys := map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "KATBENCH_S3_ENDPOINT": "http://127.0.0.1:9"}
	cases := []struct {
		name string
		s    StorageSettings
		env  map[string]string
		want string
	}{
		{"s3 without endpoint", StorageSettings{Warehouse: "s3://bench/wh"}, map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}, "needs an S3 endpoint"},
		{"bad endpoint", StorageSettings{Warehouse: "s3://bench/wh", Endpoint: "127.0.0.1:9"}, keys, "--s3-endpoint"},
		{"no keys", StorageSettings{Warehouse: "s3://bench/wh", Endpoint: "http://127.0.0.1:9"}, nil, "needs S3 keys"},
		{"bad scheme", StorageSettings{Warehouse: "ftp://bench/wh"}, nil, "want file or s3"},
		{"bad transport", StorageSettings{Transport: "pigeon"}, nil, "--transport"},
		{"bad transport env", StorageSettings{}, map[string]string{transport.EnvKind: "pigeon"}, transport.EnvKind},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			_, err := c.s.Resolve(context.Background(), func(k string) string { return c.env[k] }, transport.Settings{}, &log)
			if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), c.want) || strings.HasPrefix(err.Error(), ErrSettings.Error()) {
				t.Fatalf("Resolve: %v; want ErrSettings saying only %q", err, c.want)
			}
		})
	}
}

// TestStorageDefaultsAndFile: no warehouse is the default everywhere; a
// file:// one is kept without its trailing slash (each competitor gets its
// own prefix under it: scenarios.NewTargets), and a transport given for it
// is said to have no effect.
func TestStorageDefaultsAndFile(t *testing.T) {
	none := func(string) string { return "" }
	st, err := StorageSettings{}.Resolve(context.Background(), none, transport.Settings{}, &bytes.Buffer{})
	if err != nil || st.Warehouse != "" || st.VendedConfig() != nil {
		t.Fatalf("default: %+v, %v; want the zero Storage", st, err)
	}
	if got := st.Describe("/tmp/x"); got != "file:// under /tmp/x" {
		t.Errorf("Describe = %q", got)
	}
	var log bytes.Buffer
	st, err = StorageSettings{Warehouse: "file:///tmp/wh/", Transport: "http"}.Resolve(context.Background(), none, transport.Settings{}, &log)
	if err != nil {
		t.Fatal(err)
	}
	if st.Warehouse != "file:///tmp/wh" || st.Params["warehouse"] != "file" {
		t.Errorf("Storage = %+v, want the warehouse without its trailing slash and warehouse=file", st)
	}
	if !strings.Contains(log.String(), "--transport http has no effect") {
		t.Errorf("log %q, want the transport said to have no effect", log.String())
	}
	if st.VendedConfig() != nil || st.Describe("/d") != "file:///tmp/wh" {
		t.Errorf("file warehouse: vended %v, described %q", st.VendedConfig(), st.Describe("/d"))
	}
}

// TestStorageS3Vends: an s3:// storage vends its endpoint and keys with
// path-style addressing, and describes itself without the keys.
func TestStorageS3Vends(t *testing.T) {
	st := Storage{Warehouse: "s3://b/wh", S3: true, Params: map[string]any{"transport": "http"}, IOProps: map[string]string{
		icebergio.S3EndpointURL: "http://127.0.0.1:9000", icebergio.S3AccessKeyID: "AK", icebergio.S3SecretAccessKey: "SK", icebergio.S3Region: "r"}}
	v := st.VendedConfig()
	if v[icebergio.S3SecretAccessKey] != "SK" || v["s3.path-style-access"] != "true" || v[icebergio.S3ForceVirtualAddressing] != "false" {
		t.Errorf("VendedConfig = %v", v)
	}
	if d := st.Describe("/d"); d != "s3://b/wh via http://127.0.0.1:9000 (transport http)" {
		t.Errorf("Describe = %q", d)
	}
	for wh, want := range map[string]bool{"s3://b/x": true, "s3://Bad_Bucket/x": true, "file:///x": false, "": false} {
		if IsS3(wh) != want {
			t.Errorf("IsS3(%q) = %v", wh, !want)
		}
	}
}
