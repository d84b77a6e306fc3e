package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// ExportedSurface fails t unless the exported names of the package in the
// test's directory (its non-test files) are exactly want: functions,
// types, constants, variables, and methods of exported types as
// "Type.Method". A package pins its surface with it, so that a new
// exported name is a decision written into the test's list.
func ExportedSurface(t testing.TB, want []string) {
	t.Helper()
	got, err := exportedNames(".")
	if err != nil {
		t.Fatal(err)
	}
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Fatalf("exported identifiers:\n got %q\nwant %q", got, want)
	}
}

// exportedNames lists, sorted, the exported names of the one package whose
// non-test Go files are in dir.
func exportedNames(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		return nil, err
	}
	var got []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				got = append(got, declNames(d)...)
			}
		}
	}
	slices.Sort(got)
	return got, nil
}

// declNames returns the exported names one declaration adds.
func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
		typ := d.Recv.List[0].Type
		if s, ok := typ.(*ast.StarExpr); ok {
			typ = s.X
		}
		if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
			names = append(names, id.Name+"."+d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}
