package dataplane

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsLeaveCatalogScenariosOut: the data plane shares the engine
// with the catalog scenarios, not their package, as doc.go says.
func TestImportsLeaveCatalogScenariosOut(t *testing.T) {
	testenv.CheckNotImported(t, "github.com/nordisk/katbench/scenarios", "github.com/nordisk/katbench/workload",
		"github.com/nordisk/katbench/dataset")
}
