package workload

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayLight: a workload is a description; it links no
// catalog, competitor or scenario, only what doc.go allows.
func TestImportsStayLight(t *testing.T) {
	testenv.CheckImports(t, append([]string{
		"github.com/nordisk/katbench/workload",
	}, testenv.ResultsDeps...))
}
