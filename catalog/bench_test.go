package catalog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/nordisk/katbench/catalog"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// benchTables is the number of tables in the read benchmarks' catalog, so
// lookups run against a realistically sized mirror.
const benchTables = 1000

func benchCatalog(b *testing.B, d catalog.Durability) (*catalog.Catalog, table.Identifier) {
	b.Helper()
	c := openAt(b, b.TempDir(), d)
	ctx := context.Background()
	if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	var id table.Identifier
	for i := range benchTables {
		id = table.Identifier{"bench", fmt.Sprintf("t%04d", i)}
		if _, err := c.CreateTable(ctx, id, testSchema); err != nil {
			b.Fatal(err)
		}
	}
	return c, id
}

func BenchmarkLoadTable(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	if _, err := c.LoadTable(ctx, id); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.LoadTable(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadTableParallel shows that warm loads do not serialise.
func BenchmarkLoadTableParallel(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.LoadTable(ctx, id); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkResolveMetadata(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ResolveMetadata(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckTableExists(b *testing.B) {
	c, id := benchCatalog(b, catalog.None)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		id    table.Identifier
		exist bool
	}{
		{"hit", id, true},
		{"miss", table.Identifier{"bench", "absent"}, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := c.CheckTableExists(ctx, tc.id); err != nil || ok != tc.exist {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

func BenchmarkCreateTable(b *testing.B) {
	for _, d := range catalog.Durabilities {
		b.Run(string(d), func(b *testing.B) {
			c := openAt(b, b.TempDir(), d)
			ctx := context.Background()
			if err := c.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := c.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", i)}, testSchema); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkCommitTable(b *testing.B) {
	c, id := benchCatalog(b, catalog.Immediate)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, _, err := c.CommitTable(ctx, id, nil,
			[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"n": fmt.Sprint(i)})}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// The peer: iceberg-go's SQL catalog on SQLite, measured the same way, so
// the ratios can be read off one benchmark run.

func sqlCatalog(b *testing.B) icecatalog.Catalog {
	b.Helper()
	dir := b.TempDir()
	cat, err := icecatalog.Load(context.Background(), "bench", iceberg.Properties{
		"uri":             "file://" + filepath.Join(dir, "sql.db"),
		sqlcat.DriverKey:  sqliteshim.ShimName,
		sqlcat.DialectKey: string(sqlcat.SQLite),
		"type":            "sql",
		"warehouse":       "file://" + dir,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cat.(*sqlcat.Catalog).Close() })
	if err := cat.CreateNamespace(context.Background(), table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	return cat
}

func BenchmarkPeerSQLCreateTable(b *testing.B) {
	cat := sqlCatalog(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := cat.CreateTable(ctx, table.Identifier{"bench", fmt.Sprintf("t%d", i)}, testSchema); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPeerSQLLoadTable(b *testing.B) {
	cat := sqlCatalog(b)
	ctx := context.Background()
	id := table.Identifier{"bench", "t"}
	if _, err := cat.CreateTable(ctx, id, testSchema); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cat.LoadTable(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}
