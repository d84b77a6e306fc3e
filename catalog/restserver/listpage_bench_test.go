package restserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// withoutPager hides the embedded catalog's ListTablesAfter, so the server
// pages over ListTables as it does for any other catalog.
type withoutPager struct{ icecatalog.Catalog }

// BenchmarkListTablesFirstPage asks for the first page of 100 tables of a
// namespace of 1,000 and of 10,000 tables, through the seeking pager and
// through paging over the whole listing, side by side:
//
//	go test -run '^$' -bench ListTablesFirstPage -benchtime 2000x ./catalog/restserver
func BenchmarkListTablesFirstPage(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cat := newEmbedded(b)
		ns := table.Identifier{"db"}
		if err := cat.CreateNamespace(context.Background(), ns, nil); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			if _, err := cat.CreateTable(context.Background(), table.Identifier{"db", fmt.Sprintf("t%06d", i)}, testSchema); err != nil {
				b.Fatal(err)
			}
		}
		for _, path := range []struct {
			name string
			cat  icecatalog.Catalog
		}{{"seek", cat}, {"whole-listing", withoutPager{cat}}} {
			_, base := startServer(b, path.cat, Options{})
			url := base + "/v1/namespaces/db/tables?pageSize=100"
			b.Run(fmt.Sprintf("tables=%d/%s", n, path.name), func(b *testing.B) {
				for b.Loop() {
					resp, err := http.Get(url)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, resp.Body); err != nil {
						b.Fatal(err)
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
				}
			})
		}
	}
}
