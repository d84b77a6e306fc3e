package disturb

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayLight: a disturbance links no catalog, competitor or
// scenario, only what doc.go allows.
func TestImportsStayLight(t *testing.T) {
	testenv.CheckImports(t, []string{
		"github.com/nordisk/katbench/disturb",
		"github.com/nordisk/katbench/bench",
		"github.com/nordisk/katbench/internal/results",
		"github.com/nordisk/katbench/internal/usage",
		"github.com/nordisk/katbench/internal/pacer",
		"github.com/nordisk/katbench/internal/phold",
		"github.com/HdrHistogram/hdrhistogram-go",
		"github.com/spf13/pflag",
		"golang.org/x/sys/unix",
	})
}
