package testenv

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExportedNames: functions, types, values and methods of exported
// types are listed; unexported names, methods of unexported types and test
// files are not.
func TestExportedNames(t *testing.T) {
	dir := t.TempDir()
	src := `package p

type T struct{}
type hidden struct{}

const C, c = 1, 2

var V = 3

func F()            {}
func f()            {}
func (T) M()        {}
func (*T) P()       {}
func (T) m()        {}
func (hidden) H()   {}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc Test() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := exportedNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"C", "F", "T", "T.M", "T.P", "V"}; !slices.Equal(got, want) {
		t.Fatalf("exportedNames = %q, want %q", got, want)
	}
}
