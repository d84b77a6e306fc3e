package scenarios

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/registry"
	"github.com/nordisk/katbench/internal/results"
)

// Scenario is one registered catalog scenario: its descriptor, which
// `katbench list`, the line's stamp and every reader of names share with
// the storage benches' scenarios, and how it runs on a competitor. A
// Scenario value is immutable once registered and safe for concurrent use.
type Scenario struct {
	bench.Scenario
	// Run measures one round on one competitor. It returns the measurement
	// and the params that shaped it, or an error made with [Skip] when it
	// cannot run there (a skipped line). Any other error aborts the run.
	Run func(ctx context.Context, env *Env) (Outcome, error)
}

// Outcome is what one round of a scenario produced.
type Outcome struct {
	M Measurement
	// Params are added to the line's params (hit ratio, durability, …).
	Params map[string]any
	// Measures are added to the line's typed secondary measurements.
	Measures map[string]results.Measure
}

// need is a requirement of catalog scenarios: met reports whether the
// runner's Env satisfies it; explain, when not nil, gives a more precise
// skip reason than why.
func need(why string, met func(*Env) bool, explain func(*Env) string) bench.Requirement {
	r := bench.Requirement{Why: why, Met: func(env any) bool { return met(env.(*Env)) }}
	if explain != nil {
		r.Explain = func(env any) string { return explain(env.(*Env)) }
	}
	return r
}

// Capability requires the competitor to have capability T (found with
// competitors.As).
func Capability[T any](why string) bench.Requirement {
	return need(why, func(env *Env) bool {
		_, ok := competitors.As[T](env.Competitor)
		return ok
	}, nil)
}

// Requirements shared by the built-in scenarios.
var (
	// NeedDataset: the dataset's namespaces were created.
	NeedDataset = need("dataset setup failed",
		func(env *Env) bool { return env.Dataset != nil },
		func(env *Env) string {
			if env.SetupErr == nil {
				return "dataset setup failed"
			}
			return "dataset setup failed: " + env.SetupErr.Error()
		})
	// NeedTables: the dataset holds at least one table.
	NeedTables = need("no tables",
		func(env *Env) bool { return env.Dataset != nil && len(env.Dataset.Tables) > 0 },
		func(env *Env) string {
			switch {
			case env.Dataset == nil:
				return NeedDataset.Explain(env)
			case env.Dataset.TablesErr != nil:
				return "no tables: " + env.Dataset.TablesErr.Error()
			}
			return "no tables: none were created"
		})
)

// Env is what a scenario's Run gets: the competitor, its dataset, the run's
// options and the round. An Env belongs to one Run call.
type Env struct {
	Competitor competitors.Competitor
	// Dataset is nil when setup failed (only scenarios without
	// NeedDataset then run); SetupErr says why.
	Dataset  *dataset.Dataset
	SetupErr error
	Opts     Options
	// Threads is the scenario's worker count (its level).
	Threads int
	// Round counts the rounds of this scenario on this competitor from 0;
	// names of objects a round creates must include it.
	Round int
	// Target is what the competitor was built from, so a scenario can
	// build fresh ones (the durability sweep).
	Target CompetitorSetup

	created *createdSet
}

// Created records tables the scenario created on Competitor, so the runner
// drops them at the end (unless the competitor's storage is ephemeral).
// Safe for concurrent use.
func (env *Env) Created(ids ...table.Identifier) { env.created.add(ids...) }

// createdSet is the tables made by scenarios on one competitor.
type createdSet struct {
	mu  sync.Mutex
	ids []table.Identifier
}

func (c *createdSet) add(ids ...table.Identifier) {
	c.mu.Lock()
	c.ids = append(c.ids, ids...)
	c.mu.Unlock()
}

func (c *createdSet) list() []table.Identifier {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]table.Identifier(nil), c.ids...)
}

// skipError is a Run's "cannot run here".
type skipError struct{ reason string }

func (e skipError) Error() string { return "skipped: " + e.reason }

// Skip returns the error a Run returns when the scenario cannot run on this
// competitor; reason goes on the skipped line.
func Skip(reason string) error { return skipError{reason: reason} }

// skipped returns the reason when err was made by Skip.
func skipped(err error) (string, bool) {
	var s skipError
	if errors.As(err, &s) {
		return s.reason, true
	}
	return "", false
}

// byName holds the catalog scenarios by name (a levelled one by its
// stem).
var byName registry.Registry[Scenario]

// Register adds a scenario. It panics on a duplicate or incomplete entry:
// that is a programming error found at init, never a user input.
func Register(s Scenario) {
	switch {
	case s.Name == "" || s.Run == nil:
		panic("scenarios: Register needs a Name and a Run")
	case s.Kind != bench.KindLatency && s.Kind != bench.KindThroughput && s.Kind != bench.KindDurability && s.Kind != bench.KindOpen:
		panic("scenarios: " + s.Name + ": unknown kind " + string(s.Kind))
	case s.Metric.Better() == "":
		panic("scenarios: " + s.Name + ": unknown metric " + string(s.Metric))
	}
	if s.Threads < 1 {
		s.Threads = 1
	}
	if len(s.Dims) == 0 {
		s.Dims = []bench.Dimension{bench.DimThreads}
	}
	if err := byName.Register(s.Name, s); err != nil {
		panic("scenarios: " + err.Error())
	}
}

// DefaultThreads are the throughput levels.
var DefaultThreads = []int{1, 2, 4, 8, 16, 32}

// Plan returns every registered scenario in run order, with each levelled
// scenario expanded once per thread level (its Name and Threads set).
func Plan(threads []int) []Scenario {
	base := byName.Values() // in name order, which breaks ties of Order
	sort.SliceStable(base, func(i, j int) bool { return base[i].Order < base[j].Order })
	var out []Scenario
	for _, s := range base {
		if !s.Levels {
			out = append(out, s)
			continue
		}
		for _, t := range threads {
			l := s
			l.Name = LevelName(s.Name, t)
			l.Threads = t
			out = append(out, l)
		}
	}
	return out
}

// LevelName is the name of level t of a levelled scenario named stem.
func LevelName(stem string, t int) string { return stem + ".t" + strconv.Itoa(t) }

// Names lists every scenario name for the given throughput levels, in run
// order.
func Names(threads []int) []string {
	var names []string
	for _, s := range Plan(threads) {
		names = append(names, s.Name)
	}
	return names
}

// Lookup returns the scenario named name among the levels given (nil means
// DefaultThreads), so a reader of old lines can find a scenario's kind and
// metric without parsing its name.
func Lookup(name string, threads []int) (Scenario, bool) {
	if threads == nil {
		threads = DefaultThreads
	}
	for _, s := range Plan(threads) {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// ParseSelector validates globs against the known names: a glob that
// matches no scenario is an error naming the valid ones.
func ParseSelector(globs string, threads []int) (bench.Selector, error) {
	return bench.ParseSelectorOf(globs, Names(threads))
}
