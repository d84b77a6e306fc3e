package bench

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayLight: the engine is a leaf, so a micro-benchmark built
// on it (s3bench) does not link catalogs, databases or RPC stacks. Every
// package outside the standard library that bench depends on is one of
// those allowed here, and none of the heavy ones is among them.
func TestImportsStayLight(t *testing.T) {
	testenv.CheckImports(t, testenv.EngineDeps)
}
