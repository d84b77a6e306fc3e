package uring

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestExportedSurface keeps the package's product small: the Transport, its
// options and the availability check. The ring machinery lives in
// internal/ring, as bbolt keeps its pages and freelist to itself; a new
// exported name here is a decision, so it must be added to this list.
func TestExportedSurface(t *testing.T) {
	testenv.ExportedSurface(t, []string{
		"Available", "DefaultIdleTimeout", "DefaultMaxResponseHeaderBytes", "DefaultPoolSize", "ErrPoolClosed", "ErrResponseHeaderTooLarge", "ErrServerClosed", "ErrUnavailable",
		"ForceFailEnv", "NewTransport", "Options", "ParseWait", "Transport",
		"Transport.Close", "Transport.CloseIdleConnections", "Transport.Describe", "Transport.RoundTrip", "Transport.WaitUsed",
		"WaitAuto", "WaitBlock", "WaitEnv", "WaitMode", "WaitMode.String", "WaitPoll",
	})
}
