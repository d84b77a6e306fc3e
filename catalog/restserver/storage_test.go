package restserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/catalogtest"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	katcatalog "github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/testenv/s3wh"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// TestS3Warehouse runs the front over an embedded catalog whose warehouse
// is on S3 (versitygw, io_uring): the conformance suite, and storage
// vending — a client with no S3 settings of its own reads and writes the
// table's files with what the server hands it.
func TestS3Warehouse(t *testing.T) {
	wh := s3wh.Versitygw(t, transport.Uring)
	open := func(t *testing.T) *katcatalog.Catalog {
		cat, err := katcatalog.Open(context.Background(), katcatalog.Options{Dir: t.TempDir(), Warehouse: wh.Next(), IOProps: wh.Props})
		if err != nil {
			t.Fatalf("open embedded catalog: %v", err)
		}
		t.Cleanup(func() { _ = cat.Close() })
		return cat
	}
	vended := map[string]string{}
	for _, k := range []string{icebergio.S3EndpointURL, icebergio.S3AccessKeyID, icebergio.S3SecretAccessKey, icebergio.S3Region} {
		vended[k] = wh.Props[k]
	}
	vended["s3.path-style-access"] = "true"

	t.Run("Conformance", func(t *testing.T) {
		catalogtest.RunCatalogTests(t, catalogtest.Config{
			SupportsNamespaceProperties: true,
			NewCatalog: func(t *testing.T) icecatalog.Catalog {
				_, url := startServer(t, open(t), Options{})
				return newClient(t, url)
			},
		})
	})

	// The client must get everything from the server, not the environment.
	t.Setenv(s3.EnvEndpoint, "")
	t.Setenv(s3.EnvAccessKey, "")
	t.Setenv(s3.EnvSecretKey, "")

	t.Run("Vending", func(t *testing.T) {
		ctx := context.Background()
		_, url := startServer(t, open(t), Options{StorageConfig: vended})
		var cfg configResponse
		status, body, _ := do(t, http.MethodGet, url+"/v1/config", "", "")
		if status != http.StatusOK || json.Unmarshal([]byte(body), &cfg) != nil {
			t.Fatalf("GET /v1/config = %d %s", status, body)
		}
		for k, v := range vended {
			if cfg.Defaults[k] != v {
				t.Errorf("/v1/config defaults[%s] = %q, want %q", k, cfg.Defaults[k], v)
			}
		}
		cl := newClient(t, url)
		if err := cl.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
			t.Fatal(err)
		}
		schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
		if _, err := cl.CreateTable(ctx, table.Identifier{"ns", "t"}, schema); err != nil {
			t.Fatal(err)
		}
		status, body, _ = do(t, http.MethodGet, url+"/v1/namespaces/ns/tables/t", "", "")
		var ltr struct {
			Config map[string]string `json:"config"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(body), &ltr) != nil {
			t.Fatalf("GET table = %d %.300s", status, body)
		}
		for k, v := range vended {
			if ltr.Config[k] != v {
				t.Errorf("LoadTableResult.config[%s] = %q, want %q", k, ltr.Config[k], v)
			}
		}
		tbl, err := cl.LoadTable(ctx, table.Identifier{"ns", "t"})
		if err != nil {
			t.Fatal(err)
		}
		fsys, err := tbl.FS(ctx)
		if err != nil {
			t.Fatalf("client's table IO from vended config: %v", err)
		}
		wfs, ok := fsys.(icebergio.WriteFileIO)
		if !ok {
			t.Fatalf("client's table IO %T cannot write", fsys)
		}
		name := tbl.Location() + "/data/vended.bin"
		payload := []byte("written by a client that was told where the warehouse is")
		if err := wfs.WriteFile(name, payload); err != nil {
			t.Fatalf("client write through vended config: %v", err)
		}
		server, err := s3io.New(wh.Props)
		if err != nil {
			t.Fatal(err)
		}
		got, err := server.ReadFile(name)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("server reads %q, %v; want what the client wrote", got, err)
		}
	})

	t.Run("NoVending", func(t *testing.T) {
		ctx := context.Background()
		_, url := startServer(t, open(t), Options{})
		cl := newClient(t, url)
		if err := cl.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
			t.Fatal(err)
		}
		schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
		tbl, err := cl.CreateTable(ctx, table.Identifier{"ns", "t"}, schema)
		if err != nil {
			t.Fatal(err)
		}
		status, body, _ := do(t, http.MethodGet, url+"/v1/namespaces/ns/tables/t", "", "")
		if status != http.StatusOK || bytes.Contains([]byte(body), []byte(wh.Props[icebergio.S3SecretAccessKey])) {
			t.Fatalf("GET table without vending = %d, and must not carry the secret: %.300s", status, body)
		}
		if _, err := tbl.FS(ctx); !errors.Is(err, s3io.ErrNoEndpoint) {
			t.Fatalf("client's table IO without vending: %v, want ErrNoEndpoint (clients bring their own)", err)
		}
	})
}
