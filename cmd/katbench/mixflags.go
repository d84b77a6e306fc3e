package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/scenarios"
)

// mixFlags run a mix instead of the scenarios (--mix, --keys, --seed,
// --arrivals) and, for `katbench capacity`, search its capacity.
type mixFlags struct {
	mix, keys, arrivals string
	seed                uint64
	// capacity is set by `katbench capacity` only.
	capacity *capacityFlags
}

func (m *mixFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&m.mix, "mix", "", "run a mix instead of the scenarios: a named mix (see 'katbench list') or weights like 'load_table=80,table_exists=10,commit_table=10'")
	fl.StringVar(&m.keys, "keys", "", "which table each operation of a mix touches: "+scenarios.KeysHelp+" (default: the mix's own, uniform for most)")
	fl.Uint64Var(&m.seed, "seed", 1, "seed of a mix's random choices (operation, table, Poisson gap), recorded on its lines")
	fl.StringVar(&m.arrivals, "arrivals", "", "open-loop arrivals of a mix: constant (default) or poisson")
}

// capacityFlags shape `katbench capacity`'s search.
type capacityFlags struct {
	slo                     string
	start, minRate, maxRate float64
	factor, keep, precision float64
	bisect                  int
	stepDuration            time.Duration
	stepOps                 int64
}

func (c *capacityFlags) register(fl *pflag.FlagSet) {
	d := scenarios.DefaultCapacity(false)
	fl.StringVar(&c.slo, "slo", "", "the objective every step must meet: "+scenarios.SLOHelp)
	fl.Float64Var(&c.start, "start-rate", d.StartRate, "first step's rate, ops/s per target")
	fl.Float64Var(&c.minRate, "min-rate", 0, "lowest rate tried when the first step breaks the objective (default start-rate/8)")
	fl.Float64Var(&c.maxRate, "max-rate", d.MaxRate, "highest rate tried, ops/s")
	fl.Float64Var(&c.factor, "factor", d.Factor, "geometric step between rates before the objective breaks")
	fl.IntVar(&c.bisect, "bisect", d.Bisections, "bisection steps between the last good and the first bad rate")
	fl.Float64Var(&c.precision, "precision", d.Precision, "stop bisecting once first-bad/last-good ≤ 1 + this")
	fl.Float64Var(&c.keep, "keep", d.Keep, "fraction of the offered rate a step must achieve to count as kept")
	fl.DurationVar(&c.stepDuration, "step-duration", 0, "minimum measured time per step (default 1s with --quick, 5s otherwise), after --warmup")
	fl.Int64Var(&c.stepOps, "step-ops", -1, "minimum operations per step (default 1000 with --quick, 5000 otherwise); a slow step lasts up to 10× --step-duration")
}

// apply turns the flags into o.Workload (and o.Capacity), rejecting bad
// values before anything runs. threadsGiven and scenarioGiven say whether
// --threads and --scenario were on the command line.
func (m *mixFlags) apply(o *scenarios.Options, threadsGiven, scenarioGiven bool) error {
	if m.mix == "" {
		switch {
		case m.capacity != nil:
			return usagef("capacity needs --mix (e.g. --mix read-heavy; see 'katbench list')")
		case m.keys != "" || m.arrivals != "":
			return usagef("--keys and --arrivals shape a mix: give --mix too")
		}
		return nil
	}
	if scenarioGiven {
		return usagef("--scenario with --mix: a mix runs instead of the scenarios")
	}
	mix, err := scenarios.ParseMix(m.mix)
	if err != nil {
		return usageError{err}
	}
	wl := &scenarios.Workload{Mix: mix, Seed: m.seed}
	if m.keys != "" {
		if wl.Keys, err = scenarios.ParseKeys(m.keys); err != nil {
			return usageError{err}
		}
	}
	switch m.arrivals {
	case "", string(pacer.Constant):
	case string(pacer.Poisson):
		if o.Rate <= 0 && m.capacity == nil {
			return usagef("--arrivals poisson: an open loop needs --rate")
		}
	default:
		return usagef("--arrivals %q: want constant or poisson", m.arrivals)
	}
	wl.Arrivals = pacer.Arrivals(m.arrivals)
	if !threadsGiven {
		o.Threads = []int{8} // a mix is one closed-loop level unless asked for more
	}
	o.Workload = wl
	if m.capacity == nil {
		return nil
	}
	return m.capacity.apply(o, mix)
}

func (c *capacityFlags) apply(o *scenarios.Options, mix scenarios.Mix) error {
	if o.Rate > 0 {
		return usagef("--rate with capacity: the search chooses the rates (--start-rate, --max-rate)")
	}
	if c.slo == "" {
		return usagef("capacity needs --slo (e.g. --slo 'p99<=50ms')")
	}
	slo, err := scenarios.ParseSLO(c.slo)
	if err != nil {
		return usageError{err}
	}
	if err := slo.CheckMix(mix); err != nil {
		return usageError{err}
	}
	s := scenarios.DefaultCapacity(o.Quick)
	s.SLO, s.StartRate, s.MaxRate, s.Factor, s.Bisections, s.Precision, s.Keep = slo, c.start, c.maxRate, c.factor, c.bisect, c.precision, c.keep
	s.MinRate = c.start / 8
	if c.minRate != 0 {
		s.MinRate = c.minRate
	}
	if c.stepDuration != 0 {
		s.StepDuration = c.stepDuration
	}
	if c.stepOps >= 0 {
		s.StepOps = c.stepOps
	}
	if err := s.Validate(); err != nil {
		return usageError{err}
	}
	o.Capacity = &s
	return nil
}

// listMixes writes the mixes and their operations for `katbench list`.
func listMixes(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MIX\tKEYS\tWEIGHTS\tDESCRIPTION")
	for _, m := range scenarios.Mixes() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.Name, m.Keys, m, m.Doc)
	}
	fmt.Fprintf(w, "(operations a --mix can weigh: %s)\n", strings.Join(scenarios.MixOps(), ", "))
}
