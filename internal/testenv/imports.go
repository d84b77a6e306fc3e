package testenv

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Heavy are the stacks a light package must not link: databases, RPC,
// S3 clients, iceberg-go and Arrow.
var Heavy = []string{"jackc/pgx", "sqlite", "google.golang.org/grpc", "bbolt", "aws-sdk", "minio", "apache/iceberg-go", "apache/arrow"}

// ResultsDeps are the packages outside the standard library that
// katbench's light result types (internal/results) bring with them: a
// light package that records results may import these.
var ResultsDeps = []string{
	"github.com/nordisk/katbench/internal/results",
	"github.com/nordisk/katbench/internal/pacer",
	"github.com/nordisk/katbench/internal/phold",
	"github.com/HdrHistogram/hdrhistogram-go",
	"github.com/spf13/pflag", // internal/results: its --label flag
	"golang.org/x/sys/unix",  // internal/results: hardware counters
}

// EngineDeps are the packages the engine (bench) is made of, with what
// it brings: a light package that runs on the engine may import these.
var EngineDeps = append([]string{
	"github.com/nordisk/katbench/bench",
	"github.com/nordisk/katbench/internal/registry",
}, ResultsDeps...)

// CheckNotImported fails t for each of forbidden (import paths) that the
// package in the test's directory depends on (go list -deps).
func CheckNotImported(t testing.TB, forbidden ...string) {
	t.Helper()
	for _, d := range Deps(t) {
		if slices.Contains(forbidden, d) {
			t.Errorf("depends on %s, which its doc.go rules out", d)
		}
	}
}

// CheckImports fails t for every package outside the standard library
// that the package in the test's directory depends on (go list -deps) and
// that allowed does not name, and for any among them from Heavy.
func CheckImports(t testing.TB, allowed []string) {
	t.Helper()
	for _, d := range Deps(t) {
		for _, h := range Heavy {
			if strings.Contains(d, h) {
				t.Errorf("depends on %s (%s)", d, h)
			}
		}
		if !slices.Contains(allowed, d) {
			t.Errorf("depends on %s, which is not among the packages it may import", d)
		}
	}
}

// Deps lists the packages outside the standard library that the package
// in the test's directory depends on, itself included (go list -deps).
func Deps(t testing.TB) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		Need(t, "the go command (to list the package's dependencies)", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing, not even the package itself")
	}
	return deps
}
