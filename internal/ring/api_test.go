package ring

import (
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestExportedSurface pins what the package offers its users (the HTTP
// transport and the catalog's batch flushes): functions, types, values and
// methods. The package is internal; a new exported name is still a
// decision, so it must be added to this list.
func TestExportedSurface(t *testing.T) {
	testenv.ExportedSurface(t, []string{
		"CQE", "ErrBusy", "ErrClosed", "ErrInterrupted", "ErrSQFull", "ErrUnavailable",
		"EnterHook", "FeatExtArg", "FeatFastPoll", "FeatNoDrop", "FeatSingleMmap", "FeatSubmitStable",
		"Feature", "FlagDrain", "FlagLink", "FsyncDatasync", "FsyncNeeded", "InternalUserData",
		"Lane", "Lane.ClearInterrupt", "Lane.Close", "Lane.Err", "Lane.Interrupt", "Lane.Interrupted",
		"Lane.PrepConnect", "Lane.PrepNop", "Lane.PrepRecv", "Lane.PrepSend", "Lane.ReleaseFile", "Lane.Shared",
		"Lane.SubmitAndWait", "Lane.UseFile", "Lane.Withdraw", "LaneOps",
		"Needed", "New", "NewSQPoll", "NewShared", "Op", "Probe", "Requirement", "Requirement.Probe",
		"Ring", "Ring.ClearInterrupt", "Ring.Close", "Ring.Drain", "Ring.Entries", "Ring.Features",
		"Ring.InFlight", "Ring.Interrupt", "Ring.Interrupted", "Ring.PeekCQE", "Ring.PrepCancel",
		"Ring.PrepClose", "Ring.PrepConnect", "Ring.PrepFsync", "Ring.PrepLinkTimeout", "Ring.PrepNop",
		"Ring.PrepPollAdd", "Ring.PrepRecv", "Ring.PrepSend", "Ring.SQPoll", "Ring.Submit",
		"Ring.SubmitAndPoll", "Ring.SubmitAndWait", "Ring.SubmitAndWaitHolding", "Ring.WaitCQE",
		"SQE", "Shared", "Shared.Close", "Shared.FixedFiles", "Shared.Lanes", "Shared.NewLane", "Shared.Ring",
		"SharedOptions", "SharedStats", "Stats", "Timeout", "Timeout.Set",
	})
}
