package bench

import "github.com/spf13/pflag"

// RoundsHelp is --rounds in every bench: what a round is; each bench adds
// what one round of it does.
const RoundsHelp = "interleaved rounds: every cell is measured in this many rounds on every lane, the lanes' order reversed each round (A B, then B A); lines keep each round's values for the ratios' spread. "

// LoopFlags point at a storage bench's --rounds, --scenario and --quick,
// the flags `katbench data` and `katbench transport` share: one loop with
// other defaults, so each means the same in both. The help tails say what
// they do in this bench.
type LoopFlags struct {
	Rounds   *int
	Scenario *string
	Quick    *bool

	DefaultRounds int
	Round         string // what one round does, after RoundsHelp
	Examples      string // scenario names or globs, for --scenario
	QuickDoes     string // what --quick changes
}

// Register adds the flags to fl; getenv gives --quick's default
// (BENCH_QUICK=1).
func (l LoopFlags) Register(fl *pflag.FlagSet, getenv func(string) string) {
	fl.IntVar(l.Rounds, "rounds", l.DefaultRounds, RoundsHelp+l.Round)
	fl.StringVar(l.Scenario, "scenario", "", "measure only the scenarios matching these globs, comma-separated, as for run ("+l.Examples+"; katbench list names them)")
	fl.BoolVar(l.Quick, "quick", getenv("BENCH_QUICK") == "1", l.QuickDoes+"; env BENCH_QUICK=1")
}
