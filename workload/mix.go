package workload

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// A mix is traffic like a platform's: weighted operations, each on a table
// chosen by a key distribution, all at once. Mixes are registered values
// like scenarios (RegisterMix); their operations are the single-operation
// scenarios' operations, and each operation's line is named after its own
// scenario (load_table.latency, …) with params.mix saying which mix it
// ran in.

// ErrBadMix is returned by ParseMix for weights or a name it cannot use.
var ErrBadMix = errors.New("bad --mix")

// Weight is one operation's share of a mix, relative to the others'.
type Weight struct {
	Op     string
	Weight float64
}

// Mix is a weighted set of operations. A Mix value is immutable once
// registered or parsed and safe for concurrent use.
type Mix struct {
	// Name is the mix line's scenario suffix (mix.<Name>); "custom" for
	// weights given on the command line.
	Name string
	// Doc is one line for `katbench list`.
	Doc string
	// Weights, in the order given; only positive weights run.
	Weights []Weight
	// Keys is the mix's own key distribution, used when --keys is not
	// given (the zero value is uniform).
	Keys Keys
}

// String is the weights in ParseMix's form.
func (m Mix) String() string {
	parts := make([]string, len(m.Weights))
	for i, w := range m.Weights {
		parts[i] = w.Op + "=" + strconv.FormatFloat(w.Weight, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Share is op's fraction of the mix's operations (0 when absent).
func (m Mix) Share(op string) float64 {
	var total, mine float64
	for _, w := range m.Weights {
		total += w.Weight
		if w.Op == op {
			mine += w.Weight
		}
	}
	if total == 0 {
		return 0
	}
	return mine / total
}

// Has reports whether op has a positive weight in m.
func (m Mix) Has(op string) bool {
	for _, w := range m.Weights {
		if w.Op == op && w.Weight > 0 {
			return true
		}
	}
	return false
}

// validate checks the weights: known operations, each once, none
// negative, a positive total.
func (m Mix) validate() error {
	var total float64
	seen := map[string]bool{}
	for _, w := range m.Weights {
		if _, ok := opDocs[w.Op]; !ok {
			return fmt.Errorf("%w: unknown operation %q (operations: %s)", ErrBadMix, w.Op, strings.Join(MixOps(), ", "))
		}
		if seen[w.Op] {
			return fmt.Errorf("%w: operation %q given twice", ErrBadMix, w.Op)
		}
		seen[w.Op] = true
		if math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) || w.Weight < 0 || w.Weight > 1e9 {
			return fmt.Errorf("%w: weight of %s is %v: want a number from 0 to 1e9", ErrBadMix, w.Op, w.Weight)
		}
		total += w.Weight
	}
	if !(total > 0) {
		return fmt.Errorf("%w: the weights add up to %v: at least one must be positive", ErrBadMix, total)
	}
	return nil
}

var (
	mixMu  sync.RWMutex
	mixReg = map[string]Mix{}
)

// RegisterMix adds a named mix. It panics on a duplicate or invalid mix:
// that is a programming error found at init, never a user input.
func RegisterMix(m Mix) {
	if m.Name == "" || m.Name == "custom" {
		panic("workload: RegisterMix needs a Name other than custom")
	}
	if err := m.validate(); err != nil {
		panic("workload: mix " + m.Name + ": " + err.Error())
	}
	if m.Keys.Dist == "" {
		m.Keys = UniformKeys
	}
	mixMu.Lock()
	defer mixMu.Unlock()
	if _, dup := mixReg[m.Name]; dup {
		panic("workload: duplicate registration of mix " + m.Name)
	}
	mixReg[m.Name] = m
}

// Mixes returns every registered mix, by name.
func Mixes() []Mix {
	mixMu.RLock()
	defer mixMu.RUnlock()
	out := make([]Mix, 0, len(mixReg))
	for _, m := range mixReg {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func mixNames() []string {
	var names []string
	for _, m := range Mixes() {
		names = append(names, m.Name)
	}
	return names
}

// ParseMix reads a --mix value: the name of a registered mix, or weights
// like 'load_table=80,table_exists=10,commit_table=10' (a mix named
// custom).
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "=") {
		mixMu.RLock()
		m, ok := mixReg[s]
		mixMu.RUnlock()
		if !ok {
			return Mix{}, fmt.Errorf("%w: no mix named %q (mixes: %s; or weights like load_table=90,commit_table=10)", ErrBadMix, s, strings.Join(mixNames(), ", "))
		}
		return m, nil
	}
	m := Mix{Name: "custom", Keys: UniformKeys}
	for _, part := range strings.Split(s, ",") {
		op, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		op = strings.TrimSpace(op)
		if !ok || op == "" {
			return Mix{}, fmt.Errorf("%w: %q: want operation=weight", ErrBadMix, part)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil {
			return Mix{}, fmt.Errorf("%w: weight of %s: %q is not a number", ErrBadMix, op, w)
		}
		m.Weights = append(m.Weights, Weight{Op: op, Weight: v})
	}
	if err := m.validate(); err != nil {
		return Mix{}, err
	}
	return m, nil
}

// Op is an operation a mix can weigh. Package scenarios runs it on a
// competitor; here it is a name, the single-operation scenario that
// names its lines, and what it does.
type Op struct {
	Name     string
	Scenario string
	Doc      string
}

// opDocs are the operations a mix can weigh, by name, with what each does;
// each names its lines after the single-operation scenario NAME.latency.
var opDocs = map[string]string{
	"load_table":      "load the key's table",
	"table_exists":    "check the key's table exists (every other check a miss); a wrong answer is an error",
	"commit_table":    "reload the key's table and move its branch (main where the catalog keeps no other), guarded by the branch's snapshot: a lost race retries with backoff and counts as a conflict",
	"create_table":    "create a table in the work namespace",
	"list_tables":     "list every table of the key's namespace",
	"list_namespaces": "list the namespaces beside the key's namespace (its parent's children)",
}

// LookupOp returns the operation a mix calls name.
func LookupOp(name string) (Op, bool) {
	doc, ok := opDocs[name]
	if !ok {
		return Op{}, false
	}
	return Op{Name: name, Scenario: name + ".latency", Doc: doc}, true
}

// MixOps lists the operations a mix can weigh.
func MixOps() []string {
	out := make([]string, 0, len(opDocs))
	for name := range opDocs {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func init() {
	RegisterMix(Mix{Name: "read-heavy", Doc: "reads and updates 90/10, as Polaris' read/update benchmark: loads, existence checks, contended commits",
		Weights: []Weight{{"load_table", 80}, {"table_exists", 10}, {"commit_table", 10}}})
	RegisterMix(Mix{Name: "write-heavy", Doc: "half commits, a tenth creates, the rest loads",
		Weights: []Weight{{"load_table", 40}, {"commit_table", 50}, {"create_table", 10}}})
	RegisterMix(Mix{Name: "commit-storm", Doc: "commits on a few hot tables (2 % of them get every operation): conflicts and retries",
		Weights: []Weight{{"commit_table", 90}, {"load_table", 10}}, Keys: Keys{Dist: "hotspot", Fraction: 0.02, Share: 1}})
	RegisterMix(Mix{Name: "crawl", Doc: "a crawler: list namespaces and tables and load every table in turn",
		Weights: []Weight{{"list_namespaces", 5}, {"list_tables", 15}, {"load_table", 80}}, Keys: Keys{Dist: "sequential"}})
}
