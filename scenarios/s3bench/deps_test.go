package s3bench

import (
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayLight: the S3 micro-bench links no catalog stack: no
// catalog, competitor, scenario or database, as doc.go says.
func TestImportsStayLight(t *testing.T) {
	for _, d := range testenv.Deps(t) {
		for _, no := range []string{"katbench/catalog", "katbench/competitors", "katbench/scenarios/dataplane", "katbench/dataset",
			"katbench/workload", "jackc/pgx", "sqlite", "google.golang.org/grpc", "bbolt", "apache/arrow"} {
			if strings.Contains(d, no) {
				t.Errorf("s3bench depends on %s (%s)", d, no)
			}
		}
		if d == "github.com/nordisk/katbench/scenarios" {
			t.Errorf("s3bench depends on the catalog scenarios (%s)", d)
		}
	}
}
