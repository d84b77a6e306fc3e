package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/workspace"
)

// TestTargets: an unknown name is ErrSettings; the floors a run needs
// come after the targets given; a name given twice gets its own
// directory (name-2), made under the run's, with its own storage.
func TestTargets(t *testing.T) {
	o := Defaults(true)
	sel, err := ParseSelector("create_table.throughput.*", o.Threads)
	if err != nil {
		t.Fatal(err)
	}
	o.Select = sel
	if _, _, err := LookupTargets([]TargetSpec{{Name: "nosuch"}}, o); !errors.Is(err, bench.ErrSettings) {
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
	want := append([]string{"embedded", "embedded"}, FileFloors([]string{"embedded", "embedded"}, o)...)
	if len(want) < 3 || !slices.Equal(names, want) || len(facs) != len(specs) {
		t.Fatalf("targets %v (%d factories), want %v", names, len(facs), want)
	}
	dir := t.TempDir()
	if c := competitorStorage(workspace.Storage{}, "embedded"); c.Warehouse != "" || c.IOProps != nil || c.Params != nil {
		t.Errorf("default warehouse: competitor storage %+v, want the default (zero)", c)
	}
	st := workspace.Storage{Warehouse: "file:///tmp/wh", Params: map[string]any{"warehouse": "file"}}
	targets, err := NewTargets(specs[:2], facs[:2], dir, competitors.Config{Durability: "none"}, st, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for i, wantDir := range []string{"embedded", "embedded-2"} {
		c := targets[i].Config
		if c.Dir != filepath.Join(dir, wantDir) || c.Durability != "none" || c.Storage.Warehouse != "file:///tmp/wh/"+wantDir || c.Storage.Params["warehouse"] != "file" {
			t.Errorf("target %d: dir %s durability %q storage %+v; want %s and its own warehouse prefix", i, c.Dir, c.Durability, c.Storage, wantDir)
		}
		if fi, err := os.Stat(c.Dir); err != nil || !fi.IsDir() {
			t.Errorf("target %d: %s not made: %v", i, c.Dir, err)
		}
	}
}

// TestFloorOnlyBesideWriteSelections: the floor joins the embedded
// catalog when --scenario selects write scenarios only (one of them the
// floor's), and not for the default set or a selection that mixes in
// reads, where most of its lines would be skipped ones.
func TestFloorOnlyBesideWriteSelections(t *testing.T) {
	threads := []int{1, 8, 32}
	for _, tc := range []struct {
		globs string
		floor bool
	}{
		{"", false},
		{"create_table.throughput.*", true},
		{"create_table.throughput.*,commit_table.throughput.*,create_table.flush.*,commit_table.flush.*", true},
		{"create_table.*", true},
		{"commit_table.contended.*", false},
		{"load_table.*,create_table.throughput.*", false},
	} {
		sel, err := ParseSelector(tc.globs, threads)
		if err != nil {
			t.Fatal(err)
		}
		specs, facs, err := LookupTargets([]TargetSpec{{Name: "embedded"}},
			Options{Select: sel, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range specs {
			names = append(names, s.Name)
		}
		if len(facs) != len(specs) {
			t.Fatalf("%q: %d factories for %d targets", tc.globs, len(facs), len(specs))
		}
		if got := slices.Contains(names, competitors.FileFloorName); got != tc.floor {
			t.Errorf("--scenario %q: targets %q, floor wanted %v", tc.globs, names, tc.floor)
		}
	}
}
