package competitors

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/testenv/s3wh"
	"github.com/nordisk/katbench/transport"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// TestStorageOnS3: every competitor katbench opens itself puts its
// metadata on the given s3:// warehouse, its client can read and write the
// table's files on the same store, and its params carry the warehouse and
// transport but never a key.
func TestStorageOnS3(t *testing.T) {
	wh := s3wh.Versitygw(t, transport.HTTP)
	server, err := s3io.New(wh.Props)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"embedded", "rest", "grpc", "sql"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := Storage{Warehouse: wh.Next(), IOProps: wh.Props, Params: map[string]any{"warehouse": wh.Root, "transport": "http"}}
			// A key given as a client property (as for a remote server)
			// must not reach the params either.
			c, err := newCompetitor(t, name, Config{Dir: t.TempDir(), Storage: st, Log: &strings.Builder{},
				Props: map[string]string{"s3.secret-access-key": "prop-secret"}})
			if err != nil {
				t.Fatal(err)
			}
			cat := c.Catalog()
			if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
			tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", "t"}, restSchema)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(tbl.MetadataLocation(), st.Warehouse+"/") {
				t.Fatalf("metadata at %s, want under %s", tbl.MetadataLocation(), st.Warehouse)
			}
			if _, err := server.Stat(tbl.MetadataLocation()); err != nil {
				t.Fatalf("metadata file on the store: %v", err)
			}
			fsys, err := tbl.FS(ctx)
			if err != nil {
				t.Fatalf("client table IO: %v", err)
			}
			wfs, ok := fsys.(icebergio.WriteFileIO)
			if !ok {
				t.Fatalf("client table IO %T cannot write", fsys)
			}
			name := tbl.Location() + "/data/client.bin"
			if err := wfs.WriteFile(name, []byte(name)); err != nil {
				t.Fatalf("client write: %v", err)
			}
			if got, err := server.ReadFile(name); err != nil || !bytes.Equal(got, []byte(name)) {
				t.Fatalf("server reads %q, %v", got, err)
			}
			p := c.Params()
			if p["warehouse"] != wh.Root || p["transport"] != "http" {
				t.Errorf("params %v lack warehouse %s and transport http", p, wh.Root)
			}
			for k, v := range p {
				s := fmt.Sprint(v)
				if s == wh.Props[icebergio.S3AccessKeyID] || strings.Contains(s, wh.Props[icebergio.S3SecretAccessKey]) || strings.Contains(s, "prop-secret") {
					t.Errorf("params[%s] = %q carries a key", k, s)
				}
			}
		})
	}
}
