package ab

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/pflag"
)

// Settings are a session's settings as a command line gives them (each
// field is the flag of its name). Check them, then Run.
type Settings struct {
	OldRef, NewRef string // a binary or a git revision of Repo
	Repo           string
	Runs           int
	Cooldown       time.Duration
	MaxLoad        float64
	LoadWait       time.Duration
	Out            string   // must not exist
	OldEnv, NewEnv []string // NAME=VALUE
	Args           []string // the katbench command of every run
}

// RegisterFlags adds the session's flags to fl, each filling the field of
// its name (Args come after --, not from a flag).
func (s *Settings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&s.OldRef, "old", "", "the baseline: a katbench binary or a git revision (built from a clean checkout)")
	fl.StringVar(&s.NewRef, "new", "", "the candidate: a katbench binary or a git revision")
	fl.IntVar(&s.Runs, "runs", 10, "runs per side (each a fresh process); at least 4")
	fl.DurationVar(&s.Cooldown, "cooldown", 2*time.Second, "pause before each run")
	fl.Float64Var(&s.MaxLoad, "max-load", float64(runtime.NumCPU()), "one-minute load average a run waits for (0: no limit)")
	fl.DurationVar(&s.LoadWait, "load-wait", 30*time.Second, "longest wait for the load to drop; a run that starts above it is recorded so")
	fl.StringVar(&s.Out, "out", "", "file for every run's lines (default ab-<UTC time>.jsonl beside the command's --history file, else in the temporary directory; never overwritten)")
	fl.StringVar(&s.Repo, "repo", ".", "git repository that revisions are built from")
	fl.StringArrayVar(&s.OldEnv, "old-env", nil, "NAME=VALUE added to the old side's environment (repeatable)")
	fl.StringArrayVar(&s.NewEnv, "new-env", nil, "NAME=VALUE added to the new side's environment (repeatable), e.g. KATBENCH_TEST_DELAY_US=rest:40 to inject a slowdown")
}

// Check reports the first bad setting (wrapping ErrBadOptions), before
// anything is built or run; minRuns is the fewest runs a side can be
// compared with.
func (s Settings) Check(minRuns int) error {
	switch {
	case s.OldRef == "" || s.NewRef == "":
		return fmt.Errorf("%w: --old and --new are both required", ErrBadOptions)
	case s.Runs < minRuns:
		return fmt.Errorf("%w: --runs %d: compare needs at least %d runs a side to decide anything", ErrBadOptions, s.Runs, minRuns)
	case s.Cooldown < 0 || s.LoadWait < 0 || s.MaxLoad < 0:
		return fmt.Errorf("%w: --cooldown, --load-wait and --max-load must not be negative", ErrBadOptions)
	}
	if err := CheckEnv(append(append([]string(nil), s.OldEnv...), s.NewEnv...)); err != nil {
		return fmt.Errorf("--old-env/--new-env: %w", err)
	}
	if err := CheckOut(s.Out); err != nil {
		return fmt.Errorf("%w: --out: %w", ErrBadOptions, err)
	}
	return nil
}

// Run resolves both sides (building revisions in a temp dir removed
// afterwards) and runs the session into s.Out (ExecuteToFile), logging on
// log. A side that cannot be resolved is an ErrBadOptions.
func (s Settings) Run(ctx context.Context, log io.Writer) (Summary, error) {
	tmp, err := os.MkdirTemp("", "katbench-ab-")
	if err != nil {
		return Summary{}, fmt.Errorf("ab: %w", err)
	}
	defer os.RemoveAll(tmp)
	logf := func(line string) { fmt.Fprintln(log, line) }
	oldSide, err := Resolve(ctx, s.OldRef, s.Repo, tmp, logf)
	if err != nil {
		return Summary{}, fmt.Errorf("%w: --old: %w", ErrBadOptions, err)
	}
	newSide, err := Resolve(ctx, s.NewRef, s.Repo, tmp, logf)
	if err != nil {
		return Summary{}, fmt.Errorf("%w: --new: %w", ErrBadOptions, err)
	}
	oldSide.Env, newSide.Env = s.OldEnv, s.NewEnv
	return ExecuteToFile(ctx, Options{Old: oldSide, New: newSide, Runs: s.Runs, Args: s.Args,
		Cooldown: s.Cooldown, MaxLoad: s.MaxLoad, LoadWait: s.LoadWait, Log: log}, s.Out)
}
