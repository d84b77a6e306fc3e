package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nordisk/katbench/competitors"
)

// TestTargets: an unknown name is ErrSettings; the floors a run needs
// come after the targets given; a name given twice gets its own
// directory (name-2), made under the run's, with its own storage.
func TestTargets(t *testing.T) {
	o := Defaults(true)
	if _, _, err := LookupTargets([]TargetSpec{{Name: "nosuch"}}, o); !errors.Is(err, ErrSettings) {
		t.Fatalf("unknown target: %v; want ErrSettings", err)
	}
	given := []TargetSpec{ParseTargetSpec("embedded"), ParseTargetSpec("embedded")}
	specs, facs, err := LookupTargets(given, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	want := append([]string{"embedded", "embedded"}, Floors([]string{"embedded", "embedded"}, o)...)
	if !slices.Equal(names, want) || len(facs) != len(specs) {
		t.Fatalf("targets %v (%d factories), want %v", names, len(facs), want)
	}
	dir := t.TempDir()
	var subs []string
	targets, err := NewTargets(specs[:2], facs[:2], dir, competitors.Config{Durability: "none"},
		func(sub string) competitors.Storage { subs = append(subs, sub); return competitors.Storage{} }, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for i, wantDir := range []string{"embedded", "embedded-2"} {
		c := targets[i].Config
		if c.Dir != filepath.Join(dir, wantDir) || c.Durability != "none" || subs[i] != wantDir {
			t.Errorf("target %d: dir %s durability %q storage of %q; want %s", i, c.Dir, c.Durability, subs[i], wantDir)
		}
		if fi, err := os.Stat(c.Dir); err != nil || !fi.IsDir() {
			t.Errorf("target %d: %s not made: %v", i, c.Dir, err)
		}
	}
}
