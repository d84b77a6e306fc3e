package disturb

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestImportsStayLight: a disturbance links no catalog, competitor or
// scenario, only what doc.go allows.
func TestImportsStayLight(t *testing.T) {
	testenv.CheckImports(t, append([]string{
		"github.com/nordisk/katbench/disturb",
		"github.com/nordisk/katbench/internal/usage",
	}, testenv.EngineDeps...))
}
