package dataset

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayBelowScenarios: the dataset is built for the scenarios,
// never from them, as doc.go says.
func TestImportsStayBelowScenarios(t *testing.T) {
	testenv.CheckNotImported(t, "github.com/nordisk/katbench/scenarios", "github.com/nordisk/katbench/workload",
		"github.com/nordisk/katbench/cmd/katbench")
}
