// Package scenarios holds katbench's shared catalog scenarios and the runner
// that drives every competitor through them identically. A scenario knows a
// competitor only through iceberg-go's catalog.Catalog and the optional
// capabilities in package competitors; it never asks who it is driving.
//
// A scenario is a registered value, like a competitor: its name, its kind,
// the metric that decides which side is better, what it needs from a
// competitor and how it runs. Adding one is one file with an init function
// calling [Register]; the runner and package results never read meaning
// back out of a name.
package scenarios

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
)

// Kind says how a scenario measures.
type Kind string

// The kinds.
const (
	// KindLatency: one goroutine, closed loop, a fixed number of recorded
	// operations; the headline is p50 (lower is better).
	KindLatency Kind = "latency"
	// KindThroughput: Threads goroutines, closed loop, for a fixed time; the
	// headline is ops/s (higher is better).
	KindThroughput Kind = "throughput"
	// KindDurability: a latency (Metric p50) or throughput (Metric ops/s)
	// scenario run on a fresh competitor opened in one durability mode.
	KindDurability Kind = "durability"
	// KindOpen: operations issued at Options.Rate from a fixed schedule
	// (open loop), each timed from its intended start; the headline is p50
	// latency under that load. Runs only when a rate is given.
	KindOpen Kind = "open"
)

// Scenario is one registered scenario. A Scenario value is immutable once
// registered and safe for concurrent use.
type Scenario struct {
	// Name is the line's scenario, stable across releases so history lines
	// stay comparable. For a scenario with Levels it is the stem: each
	// level's name is Name + ".t<N>".
	Name string
	// Kind says how it measures.
	Kind Kind
	// Metric is the headline value compared between targets (p50 or ops/s)
	// and so decides which side is better; it travels on every line.
	Metric results.Metric
	// Threads is the worker count of a single-level scenario (1 for
	// latencies). Ignored when Levels is set.
	Threads int
	// Levels expands the scenario once per thread level of
	// Options.Threads; Threads and Name are set per level by [Plan].
	Levels bool
	// Bench is the command whose loop measures it: "" for a catalog
	// scenario (Register), a storage bench's otherwise (RegisterBench).
	Bench Bench
	// Dims are the dimensions its levels vary along, in the order its
	// name carries them, each on its lines' dims. Every catalog scenario
	// has DimThreads (Register sets it): its worker count, 1 for a
	// latency.
	Dims []Dimension
	// Sweep marks a scenario of the full sweeps (the durability modes at
	// several worker counts): a quick run leaves it out unless
	// Options.Full is set or Options.Select was given.
	Sweep bool
	// Writes marks a scenario that creates or commits tables: the
	// file-system floor joins a run whose selection is only these.
	Writes bool
	// ReadsOnly marks a scenario that only reads the dataset's tables
	// (Dataset.Tables): the scenarios a read-only run (Options.ReadOnly)
	// runs on tables the user names; every other one is skipped there.
	ReadsOnly bool
	// Order places the scenario in the run: lower runs first. Ties run in
	// name order. The built-ins use multiples of 10.
	Order int
	// Needs are checked before the scenario runs on a competitor; the
	// first one not met makes a skipped line carrying its reason.
	Needs []Requirement
	// Doc is one line for `katbench list`.
	Doc string
	// Control marks a scenario that measures a floor (the competitor's
	// path with nothing of the catalog in it): its lines say so
	// (results.Record.Control) and a test delay never slows it.
	Control bool
	// Params are fixed params of the scenario, on each of its lines,
	// skipped ones included (a history level's snapshots). May be nil.
	Params map[string]any
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

// Requirement is one thing a scenario needs from a competitor and its
// dataset.
type Requirement struct {
	// Why is the skip reason when the requirement is not met.
	Why string
	// Met reports whether env satisfies it.
	Met func(env *Env) bool
	// Explain, when set, gives a more precise skip reason than Why.
	Explain func(env *Env) string
}

// Capability requires the competitor to have capability T (found with
// competitors.As).
func Capability[T any](why string) Requirement {
	return Requirement{Why: why, Met: func(env *Env) bool {
		_, ok := competitors.As[T](env.Competitor)
		return ok
	}}
}

// Requirements shared by the built-in scenarios.
var (
	// NeedDataset: the dataset's namespaces were created.
	NeedDataset = Requirement{
		Why: "dataset setup failed",
		Met: func(env *Env) bool { return env.Dataset != nil },
		Explain: func(env *Env) string {
			if env.SetupErr == nil {
				return "dataset setup failed"
			}
			return "dataset setup failed: " + env.SetupErr.Error()
		},
	}
	// NeedTables: the dataset holds at least one table.
	NeedTables = Requirement{
		Why: "no tables",
		Met: func(env *Env) bool { return env.Dataset != nil && len(env.Dataset.Tables) > 0 },
		Explain: func(env *Env) string {
			switch {
			case env.Dataset == nil:
				return NeedDataset.Explain(env)
			case env.Dataset.TablesErr != nil:
				return "no tables: " + env.Dataset.TablesErr.Error()
			}
			return "no tables: none were created"
		},
	}
)

// Env is what a scenario's Run gets: the competitor, its dataset, the run's
// options and the round. An Env belongs to one Run call.
type Env struct {
	Competitor competitors.Competitor
	// Dataset is nil when setup failed (only scenarios without
	// NeedDataset then run); SetupErr says why.
	Dataset  *Dataset
	SetupErr error
	Opts     Options
	// Threads is the scenario's worker count (its level).
	Threads int
	// Round counts the rounds of this scenario on this competitor from 0;
	// names of objects a round creates must include it.
	Round int
	// Target is what the competitor was built from, so a scenario can
	// build fresh ones (the durability sweep).
	Target Target

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

var (
	regMu    sync.RWMutex
	registry = map[string]Scenario{}
)

// Register adds a scenario. It panics on a duplicate or incomplete entry:
// that is a programming error found at init, never a user input.
func Register(s Scenario) {
	switch {
	case s.Name == "" || s.Run == nil:
		panic("scenarios: Register needs a Name and a Run")
	case s.Kind != KindLatency && s.Kind != KindThroughput && s.Kind != KindDurability && s.Kind != KindOpen:
		panic("scenarios: " + s.Name + ": unknown kind " + string(s.Kind))
	case s.Metric.Better() == "":
		panic("scenarios: " + s.Name + ": unknown metric " + string(s.Metric))
	}
	if s.Threads < 1 {
		s.Threads = 1
	}
	if len(s.Dims) == 0 {
		s.Dims = []Dimension{DimThreads}
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic("scenarios: duplicate registration of " + s.Name)
	}
	registry[s.Name] = s
}

// DefaultThreads are the throughput levels.
var DefaultThreads = []int{1, 2, 4, 8, 16, 32}

// Plan returns every registered scenario in run order, with each levelled
// scenario expanded once per thread level (its Name and Threads set).
func Plan(threads []int) []Scenario {
	regMu.RLock()
	base := make([]Scenario, 0, len(registry))
	for _, s := range registry {
		base = append(base, s)
	}
	regMu.RUnlock()
	sort.Slice(base, func(i, j int) bool {
		if base[i].Order != base[j].Order {
			return base[i].Order < base[j].Order
		}
		return base[i].Name < base[j].Name
	})
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

// Selector chooses scenarios by glob (path.Match syntax, comma-separated
// alternatives). The empty selector chooses everything.
type Selector []string

// ParseSelector validates globs against the known names: a glob that
// matches no scenario is an error naming the valid ones.
func ParseSelector(globs string, threads []int) (Selector, error) {
	return ParseSelectorOf(globs, Names(threads))
}

// ParseSelectorOf is ParseSelector against the given names: the one glob
// rule of every command that runs scenarios.
func ParseSelectorOf(globs string, names []string) (Selector, error) {
	if strings.TrimSpace(globs) == "" {
		return nil, nil
	}
	var sel Selector
	for _, g := range strings.Split(globs, ",") {
		g = strings.TrimSpace(g)
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("bad scenario glob %q: %w", g, err)
		}
		matched := false
		for _, n := range names {
			if ok, _ := path.Match(g, n); ok {
				matched = true
				break
			}
		}
		if !matched {
			return nil, fmt.Errorf("scenario %q matches nothing (valid: %s)", g, strings.Join(names, ", "))
		}
		sel = append(sel, g)
	}
	return sel, nil
}

// Selects reports whether name is chosen.
func (s Selector) Selects(name string) bool {
	if len(s) == 0 {
		return true
	}
	for _, g := range s {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
