package workload

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayLight: a workload is a description; it links no
// catalog, competitor or scenario, only what doc.go allows.
func TestImportsStayLight(t *testing.T) {
	testenv.CheckImports(t, []string{
		"github.com/nordisk/katbench/workload",
		"github.com/nordisk/katbench/internal/results",
		"github.com/nordisk/katbench/internal/pacer",
		"github.com/nordisk/katbench/internal/phold",
		"github.com/HdrHistogram/hdrhistogram-go",
		"github.com/spf13/pflag", // internal/results: its --label flag
		"golang.org/x/sys/unix",  // internal/results: hardware counters
	})
}
