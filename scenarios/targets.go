package scenarios

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nordisk/katbench/competitors"
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
	for _, name := range Floors(names, o) {
		fac, _ := competitors.Lookup(name) // Floors names registered ones only
		specs, facs = append(specs, TargetSpec{Name: name}), append(facs, fac)
	}
	return specs, facs, nil
}

// NewTargets makes each target's own directory under dir, named after it
// (name-2, name-3, … for a name given again), and its Target: base's
// config with the target's Args, Dir, Storage (storage of the directory's
// name) and Env (competitors.ReadEnv of getenv).
func NewTargets(specs []TargetSpec, facs []competitors.Factory, dir string, base competitors.Config,
	storage func(sub string) competitors.Storage, getenv func(string) string) ([]Target, error) {
	targets := make([]Target, len(specs))
	seen := map[string]int{}
	for i, s := range specs {
		sub := s.Name
		if seen[s.Name]++; seen[s.Name] > 1 {
			sub = fmt.Sprintf("%s-%d", s.Name, seen[s.Name])
		}
		cfg := base
		cfg.Args, cfg.Dir, cfg.Storage, cfg.Env = s.Args, filepath.Join(dir, sub), storage(sub), competitors.ReadEnv(s.Name, getenv)
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", cfg.Dir, err)
		}
		targets[i] = Target{Factory: facs[i], Config: cfg}
	}
	return targets, nil
}
