package dataplane

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/registry"
	"github.com/nordisk/katbench/internal/results"
)

// scenario is one registered data-plane scenario. Each lives in a file of
// its own that registers it in an init function, so adding one is adding
// a file: [Run] knows scenarios only through this type. A scenario value
// is immutable once registered.
type scenario struct {
	// key identifies it in the registry and in needs.
	key string
	// name is the line's scenario for a run (the append's carries its
	// rows per append).
	name func(cfg Config) string
	// order places it in the run: lower runs first.
	order int
	// needs is the key of a scenario whose work this one reads (the scan
	// reads what the appends wrote): it runs, unrecorded when not
	// selected itself, whenever this one is selected.
	needs string
	// optIn leaves it out of a run unless Config.Select names it.
	optIn bool
	// tables are the kinds of table it needs in every lane (created
	// before anything is measured, dropped afterwards).
	tables []string
	// runs, when set, says whether it has anything to do in this run
	// (the commit latency with no commit operations has not).
	runs func(cfg Config) bool
	// start makes its state for one run over lanes lanes.
	start func(cfg Config, lanes int) measurement
	// owns, when set, reports whether a line's scenario name is this
	// scenario's (the append's names vary with its rows); nil means the
	// name of a zero Config.
	owns func(name string) bool
	// raw is the S3 operation of the Baseline its MiB/s is compared with
	// ("put", "get"); "" for none.
	raw string
	// stem is its name in `katbench list` when its name carries a
	// dimension (data.append's rows); "" means the name of a zero Config.
	stem string
	// dims are the dimensions its name carries.
	dims []bench.Dimension
	// doc is one line for `katbench list`.
	doc string
	// bench is its registered scenario (register): what its lines are
	// stamped with.
	bench bench.Scenario
}

// lookup returns the registered scenario a line's scenario name belongs
// to.
func lookup(name string) (scenario, bool) {
	for _, s := range registered() {
		if s.owns != nil && s.owns(name) || s.owns == nil && s.name(Config{}) == name {
			return s, true
		}
	}
	return scenario{}, false
}

// measurement is a scenario's state over one run: every lane's rounds,
// then its untimed checks and its line. Run calls it from one goroutine.
type measurement interface {
	// round measures round round on lane i. An operation that fails is
	// counted on the line, never returned; only ctx's error stops a run.
	round(ctx context.Context, cfg Config, i int, l *laneState, round int)
	// finish does the untimed checks of lane i after every round.
	finish(ctx context.Context, cfg Config, i int, l *laneState)
	// record is lane i's line; name is the scenario's name in this run.
	record(cfg Config, i int, l *laneState, name string) results.Record
}

// byKey holds the data-plane scenarios by key.
var byKey registry.Registry[scenario]

// register adds a scenario; called from init functions only. It panics
// on a duplicate or incomplete entry: a programming error found at init.
func register(s scenario) {
	if s.key == "" || s.name == nil || s.start == nil {
		panic("dataplane: register needs a key, a name and a start")
	}
	stem := s.stem
	if stem == "" {
		stem = s.name(Config{})
	}
	needs := []bench.Requirement{bench.NeedCompetitor, bench.NeedTransport}
	if s.needs != "" {
		needs = append(needs, bench.NeedScenario("data."+s.needs))
	}
	doc := s.doc
	if s.optIn {
		doc += " (only when --scenario names it)"
	}
	s.bench = bench.Scenario{Name: stem, Bench: bench.BenchData, Order: s.order, Dims: s.dims, Needs: needs, Doc: doc}
	if err := byKey.Register(s.key, s); err != nil {
		panic("dataplane: scenario " + err.Error())
	}
	bench.RegisterBench(s.bench)
}

// stamp writes on a line of the scenario named r.Scenario its level in a
// run of cfg: its rows per append (those of its dimensions it has).
func stamp(r *results.Record, cfg Config) {
	if s, ok := lookup(r.Scenario); ok {
		bench.Stamp(r, s.bench, bench.Level{bench.DimRows: float64(cfg.rows())})
	}
}

// registered returns every registered scenario in run order.
func registered() []scenario {
	out := byKey.Values() // in key order, which breaks ties of order
	sort.SliceStable(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

// SelectNames are the names a data run's selection may name: Names and
// the raw-S3 baseline's (RawName).
func SelectNames(rows int64) []string { return append(Names(rows), RawName) }

// Names lists the scenarios of a run with rows per append, in run order:
// those a run measures by default, then the opt-in ones (run only when
// named by Config.Select).
func Names(rows int64) []string {
	cfg := Config{Rows: rows}
	var def, opt []string
	for _, s := range registered() {
		if s.optIn {
			opt = append(opt, s.name(cfg))
		} else {
			def = append(def, s.name(cfg))
		}
	}
	return append(def, opt...)
}

// planned is one scenario of a run: what it is, whether its line is
// written (it may run only as another's need), and its state.
type planned struct {
	scenario
	name     string
	recorded bool
	m        measurement
}

// plan returns the scenarios cfg runs, in run order, with their needs.
func plan(cfg Config, lanes int) ([]*planned, error) {
	all := registered()
	selected := func(s scenario) bool {
		if s.runs != nil && !s.runs(cfg) {
			return false
		}
		if s.optIn {
			return cfg.Select != nil && cfg.Select(s.name(cfg))
		}
		return cfg.selects(s.name(cfg))
	}
	byKey := map[string]scenario{}
	for _, s := range all {
		byKey[s.key] = s
	}
	runs := map[string]bool{}
	recorded := map[string]bool{}
	if cfg.Baseline != nil && cfg.selects(RawName) {
		runs[rawNeeds] = true // the baseline is sized from what they wrote
	}
	for _, s := range all {
		if selected(s) {
			recorded[s.key] = true
			for k := s.key; k != ""; k = byKey[k].needs {
				if _, ok := byKey[k]; !ok {
					return nil, fmt.Errorf("dataplane: %s needs %q, which is not registered", s.key, k)
				}
				runs[k] = true
			}
		}
	}
	var out []*planned
	for _, s := range all {
		if runs[s.key] {
			out = append(out, &planned{scenario: s, name: s.name(cfg), recorded: recorded[s.key], m: s.start(cfg, lanes)})
		}
	}
	return out, nil
}

// laneState is what Run keeps per lane across scenarios and rounds.
type laneState struct {
	Lane
	tables map[string]*table.Table // by kind, as the scenarios made and replaced them
	want   Checksum                // what the lane's events table should hold
	ok     bool                    // setup succeeded
}

// Recorded lists the scenarios a run with cfg writes lines for, in run
// order (the selected ones; opt-in ones only when cfg.Select names them).
func Recorded(cfg Config) []string {
	if cfg.Rows == 0 {
		cfg.Rows = DefaultRows
		if cfg.Quick {
			cfg.Rows = QuickRows
		}
	}
	if cfg.CommitOps == 0 {
		cfg.CommitOps = DefaultCommitOps
	}
	p, _ := plan(cfg, 0) // every registered need exists: checked by the tests
	var out []string
	for _, s := range p {
		if s.recorded {
			out = append(out, s.name)
		}
	}
	return out
}
