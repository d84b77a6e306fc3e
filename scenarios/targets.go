package scenarios

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/workspace"
)

// TargetSpec is one target of a run as a command line names it: a
// registered competitor and its positional arguments.
type TargetSpec struct {
	Name string
	Args []string
}

// ParseTargetSpec reads `name` or `name=URL[@WAREHOUSE]`
// (competitors.ParseTarget).
func ParseTargetSpec(s string) TargetSpec {
	name, args := competitors.ParseTarget(s)
	return TargetSpec{Name: name, Args: args}
}

// LookupTargets looks every spec up and checks its arguments (an unknown
// name or bad arguments are ErrSettings), then adds after them the
// file-system floors o runs beside them (Floors): their lines are the
// floor of the catalogs' in the same run.
//
// A floor runs only the write scenarios it has (competitors.FileFloorRuns)
// and gives every other scenario of the run a skipped line, so it is
// added only when the run asked for write scenarios alone (--scenario
// selecting only create_table.* and commit_table.* names, one of them the
// floor's): then each of its lines is a write scenario, measured or
// skipped saying why the floor cannot run it. A run of the default set
// (no --scenario, e.g. `katbench embedded --quick`) or one that mixes
// reads with writes has no floor, rather than a skipped floor line for
// every scenario the floor has nothing to compare with.
func LookupTargets(specs []TargetSpec, o Options) ([]TargetSpec, []competitors.Factory, error) {
	facs := make([]competitors.Factory, len(specs))
	names := make([]string, len(specs))
	for i, s := range specs {
		fac, err := competitors.Lookup(s.Name)
		if err != nil {
			return nil, nil, settingsErr(err)
		}
		if err := fac.Check(s.Args); err != nil {
			return nil, nil, settingsErr(err)
		}
		facs[i], names[i] = fac, s.Name
	}
	specs = append([]TargetSpec(nil), specs...)
	if !onlyWrites(o) {
		return specs, facs, nil
	}
	for _, name := range FileFloors(names, o) {
		fac, _ := competitors.Lookup(name) // FileFloors names registered ones only
		specs, facs = append(specs, TargetSpec{Name: name}), append(facs, fac)
	}
	return specs, facs, nil
}

// onlyWrites reports whether o names its scenarios (--scenario) and every
// one it selects is a write scenario.
func onlyWrites(o Options) bool {
	if len(o.Select) == 0 {
		return false
	}
	for _, sc := range selected(o) {
		if !sc.Writes {
			return false
		}
	}
	return true
}

// selectsWrites reports whether the run measures a scenario that writes
// (every run without --scenario does).
func selectsWrites(o Options) bool {
	for _, sc := range selected(o) {
		if sc.Writes {
			return true
		}
	}
	return false
}

// selected returns the scenarios of the plan the run measures: those
// --scenario selects, or every one without it.
func selected(o Options) []Scenario {
	var out []Scenario
	for _, sc := range Plan(o.Threads) {
		if len(o.Select) == 0 || o.Select.Selects(sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}

// ParseProps reads repeated --prop k=v flags (competitors.ParseProps); a
// bad one is ErrSettings.
func ParseProps(kvs []string) (map[string]string, error) {
	props, err := competitors.ParseProps(kvs)
	if err != nil {
		return nil, settingsf("--prop %v", err)
	}
	return props, nil
}

// NewTargets makes each target's own directory under dir, named after it
// (name-2, name-3, … for a name given again), and its Target: base's
// config with the target's Args, Dir, Storage (st under the directory's
// name, see competitorStorage) and Env (competitors.ReadEnv of getenv).
func NewTargets(specs []TargetSpec, facs []competitors.Factory, dir string, base competitors.Config,
	st workspace.Storage, getenv func(string) string) ([]CompetitorSetup, error) {
	targets := make([]CompetitorSetup, len(specs))
	seen := map[string]int{}
	for i, s := range specs {
		sub := s.Name
		if seen[s.Name]++; seen[s.Name] > 1 {
			sub = fmt.Sprintf("%s-%d", s.Name, seen[s.Name])
		}
		cfg := base
		cfg.Args, cfg.Dir, cfg.Storage, cfg.Env = s.Args, filepath.Join(dir, sub), competitorStorage(st, sub), competitors.ReadEnv(s.Name, getenv)
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", cfg.Dir, err)
		}
		targets[i] = CompetitorSetup{Factory: facs[i], Config: cfg}
	}
	return targets, nil
}

// competitorStorage is the storage of one competitor of a run: its own
// prefix sub (the competitor's directory name) under the warehouse, so
// competitors of one run never share a table location. The default stays
// the default.
func competitorStorage(st workspace.Storage, sub string) competitors.Storage {
	if st.Warehouse == "" {
		return competitors.Storage{}
	}
	return competitors.Storage{Warehouse: st.Warehouse + "/" + sub, IOProps: st.IOProps, Params: st.Params}
}
