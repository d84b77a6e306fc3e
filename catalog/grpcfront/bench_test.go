package grpcfront_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// benchSetup is a client over loopback to a server over a fresh embedded
// catalog holding one table, warmed so the client's metadata cache is hot.
func benchSetup(b *testing.B) (*grpcfront.Client, table.Identifier) {
	b.Helper()
	ctx := context.Background()
	cl, cat := embeddedClient(b)
	ident := table.Identifier{"bench", "t"}
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, ident, testSchema); err != nil {
		b.Fatal(err)
	}
	if _, err := cl.LoadTable(ctx, ident); err != nil {
		b.Fatal(err)
	}
	return cl, ident
}

// timed runs op b.N times and reports, besides the mean, the p50 and p99
// of the individual calls: on a shared machine the mean follows the
// scheduler's tail, the median follows the path.
func timed(b *testing.B, op func() error) {
	b.Helper()
	b.ReportAllocs()
	durs := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(durs[len(durs)*99/100].Nanoseconds())/1e3, "p99-µs")
}

func BenchmarkControl(b *testing.B) {
	cl, _ := benchSetup(b)
	ctx := context.Background()
	timed(b, func() error { return cl.Control(ctx) })
}

func BenchmarkCheckTableExists(b *testing.B) {
	cl, ident := benchSetup(b)
	ctx := context.Background()
	timed(b, func() error {
		ok, err := cl.CheckTableExists(ctx, ident)
		if err == nil && !ok {
			err = errors.New("table missing")
		}
		return err
	})
}

func BenchmarkLoadTableWarm(b *testing.B) {
	cl, ident := benchSetup(b)
	ctx := context.Background()
	timed(b, func() error {
		_, err := cl.LoadTable(ctx, ident)
		return err
	})
}

func BenchmarkResolveMetadataWarm(b *testing.B) {
	cl, ident := benchSetup(b)
	ctx := context.Background()
	timed(b, func() error {
		_, err := cl.ResolveMetadata(ctx, ident)
		return err
	})
}

// BenchmarkLoadTableWarmParallel is the throughput shape (many callers on
// one connection); -cpu sets the callers per core.
func BenchmarkLoadTableWarmParallel(b *testing.B) {
	cl, ident := benchSetup(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cl.LoadTable(ctx, ident); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkEmbeddedLoadTable is the in-process reference: the same catalog
// without the gRPC path.
func BenchmarkEmbeddedLoadTable(b *testing.B) {
	ctx := context.Background()
	cat := openEmbedded(b)
	ident := table.Identifier{"bench", "t"}
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, ident, testSchema); err != nil {
		b.Fatal(err)
	}
	timed(b, func() error {
		_, err := cat.LoadTable(ctx, ident)
		return err
	})
}
