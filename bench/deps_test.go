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
	testenv.CheckImports(t, []string{
		"github.com/nordisk/katbench/bench",
		"github.com/nordisk/katbench/internal/results",
		"github.com/nordisk/katbench/internal/pacer",
		"github.com/nordisk/katbench/internal/phold",
		"github.com/HdrHistogram/hdrhistogram-go",
		"github.com/spf13/pflag", // internal/results: its --label flag
		"golang.org/x/sys/unix",  // internal/results: hardware counters
	})
}
