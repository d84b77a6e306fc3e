package ring

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestExportedSurface pins what the package offers its users (the HTTP
// transport and the catalog's batch flushes): functions, types, values and
// methods. The package is internal; a new exported name is still a
// decision, so it must be added to this list.
func TestExportedSurface(t *testing.T) {
	want := []string{
		"CQE", "ErrBusy", "ErrClosed", "ErrInterrupted", "ErrSQFull", "ErrUnavailable",
		"EnterHook", "FeatExtArg", "FeatFastPoll", "FeatNoDrop", "FeatSingleMmap", "FeatSubmitStable",
		"Feature", "FlagDrain", "FlagLink", "FsyncDatasync", "FsyncNeeded", "InternalUserData",
		"Lane", "Lane.ClearInterrupt", "Lane.Close", "Lane.Err", "Lane.Interrupt", "Lane.Interrupted",
		"Lane.PrepConnect", "Lane.PrepNop", "Lane.PrepRecv", "Lane.PrepSend", "Lane.Shared",
		"Lane.SubmitAndWait", "Lane.Withdraw", "LaneOps",
		"Needed", "New", "NewSQPoll", "NewShared", "Op", "Probe", "Requirement", "Requirement.Probe",
		"Ring", "Ring.ClearInterrupt", "Ring.Close", "Ring.Drain", "Ring.Entries", "Ring.Features",
		"Ring.InFlight", "Ring.Interrupt", "Ring.Interrupted", "Ring.PeekCQE", "Ring.PrepCancel",
		"Ring.PrepClose", "Ring.PrepConnect", "Ring.PrepFsync", "Ring.PrepLinkTimeout", "Ring.PrepNop",
		"Ring.PrepPollAdd", "Ring.PrepRecv", "Ring.PrepSend", "Ring.SQPoll", "Ring.Submit",
		"Ring.SubmitAndPoll", "Ring.SubmitAndWait", "Ring.SubmitAndWaitHolding", "Ring.WaitCQE",
		"SQE", "Shared", "Shared.Close", "Shared.Lanes", "Shared.NewLane", "Shared.Ring",
		"SharedOptions", "SharedStats", "Stats", "Timeout", "Timeout.Set",
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range pkgs["ring"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					got = append(got, d.Name.Name)
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
					got = append(got, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							got = append(got, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								got = append(got, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("exported identifiers:\n got %q\nwant %q", got, want)
	}
}
