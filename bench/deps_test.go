package bench

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsStayLight: the engine is a leaf, so a micro-benchmark built
// on it (s3bench) does not link catalogs, databases or RPC stacks. Every
// package outside the standard library that bench depends on is one of
// those allowed here, and none of the heavy ones is among them.
func TestImportsStayLight(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the package's dependencies")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/nordisk/katbench/bench":            true,
		"github.com/nordisk/katbench/internal/results": true,
		"github.com/nordisk/katbench/internal/pacer":   true,
		"github.com/nordisk/katbench/internal/phold":   true,
		"github.com/HdrHistogram/hdrhistogram-go":      true,
		"github.com/spf13/pflag":                       true, // internal/results: its --label flag
		"golang.org/x/sys/unix":                        true, // internal/results: hardware counters
	}
	heavy := []string{"jackc/pgx", "sqlite", "google.golang.org/grpc", "bbolt", "aws-sdk", "minio", "apache/iceberg-go", "apache/arrow"}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing, not even bench itself")
	}
	for _, d := range deps {
		for _, h := range heavy {
			if strings.Contains(d, h) {
				t.Errorf("bench depends on %s (%s)", d, h)
			}
		}
		if !allowed[d] {
			t.Errorf("bench depends on %s, which is not among the packages it may import", d)
		}
	}
}
