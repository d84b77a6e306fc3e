// Package testenv decides what a test does when a real outside part (a
// server, an interpreter, a tool) cannot be had: skip with the reason on a
// developer's machine, fail under CI, where every integration test must run.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// InCI reports whether the tests run under CI (CI=true or KATBENCH_REQUIRE_ALL=1),
// where a missing real part is a failure, never a skip.
func InCI() bool {
	return os.Getenv("CI") == "true" || os.Getenv("KATBENCH_REQUIRE_ALL") == "1"
}

// Need stops the test when err is not nil: Fatalf in CI, Skipf elsewhere.
// what names the missing part ("versitygw", "pyiceberg", …) so the skip line
// says why.
func Need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if InCI() {
		t.Fatalf("%s is required in CI but unavailable: %v", what, err)
	}
	t.Skipf("skipping: %s unavailable: %v (CI=true makes this a failure)", what, err)
}

// RepoRoot returns the repository's top directory (where go.mod is), found
// from this source file, so tests can call containers/ and scripts/ from any
// package directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
