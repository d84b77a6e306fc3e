package uring

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

// TestExportedSurface keeps the package's product small: the Transport, its
// options and the availability check. The ring machinery lives in
// internal/ring, as bbolt keeps its pages and freelist to itself; a new
// exported name here is a decision, so it must be added to this list.
func TestExportedSurface(t *testing.T) {
	want := []string{
		"Available", "DefaultIdleTimeout", "DefaultMaxResponseHeaderBytes", "DefaultPoolSize", "ErrPoolClosed", "ErrResponseHeaderTooLarge", "ErrServerClosed", "ErrUnavailable",
		"ForceFailEnv", "NewTransport", "Options", "ParseWait", "Transport",
		"WaitAuto", "WaitBlock", "WaitEnv", "WaitMode", "WaitPoll",
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range pkgs["uring"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					got = append(got, d.Name.Name)
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
	if !slices.Equal(got, want) {
		t.Fatalf("exported identifiers:\n got %v\nwant %v", got, want)
	}
}
