package commitcheck_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/commitcheck"
)

// BenchmarkCommit is the checker's own cost on the commit path: one
// writer's commits on the embedded catalog with and without the marker,
// alternating commit by commit on two tables that grow alike, so drift on
// a shared machine hits both the same. It reports each one's µs per
// commit and their ratio.
func BenchmarkCommit(b *testing.B) {
	cat := openEmbedded(b, b.TempDir())
	defer cat.Close()
	ctx := context.Background()
	storms := [2]commitcheck.Storm{}
	for i, markers := range []bool{true, false} {
		storms[i] = commitcheck.Storm{Catalog: cat, Namespace: table.Identifier{"bench"}, Prefix: fmt.Sprintf("b%d", i), Tables: 1,
			Writers: 1, Commits: 1, NoMarkers: !markers}
		if err := storms[i].Setup(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var took [2]time.Duration
	for b.Loop() {
		for i, s := range storms {
			res := s.Run(ctx)
			if res.Acked.Count() != 1 {
				b.Fatalf("commit not acknowledged: %v", res.Log.Attempts())
			}
			took[i] += res.Elapsed
		}
	}
	b.ReportMetric(float64(took[0].Microseconds())/float64(b.N), "µs/commit-marker")
	b.ReportMetric(float64(took[1].Microseconds())/float64(b.N), "µs/commit-plain")
	b.ReportMetric(float64(took[0])/float64(took[1]), "marker/plain")
}

// BenchmarkCheck is the cost of reading a history back, per commit in it.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			cat := openEmbedded(b, b.TempDir())
			defer cat.Close()
			ctx := context.Background()
			s := commitcheck.Storm{Catalog: cat, Namespace: table.Identifier{"bench"}, Prefix: "b", Tables: 1, Writers: 1, Commits: n}
			if err := s.Setup(ctx); err != nil {
				b.Fatal(err)
			}
			attempts := s.Run(ctx).Log.Attempts()
			b.ResetTimer()
			for range b.N {
				rep, err := commitcheck.Check(ctx, cat, s.Idents(), attempts)
				if err != nil || rep.Errors() != 0 || rep.Acked != n {
					b.Fatalf("check: %v, %d anomalies, %d acked", err, rep.Errors(), rep.Acked)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/commit-checked")
		})
	}
}
