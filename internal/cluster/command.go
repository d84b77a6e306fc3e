package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/scenarios"
)

// Command is `katbench cluster run` as its flags give it: the Options,
// and DryRun to print the Job instead of creating it. Not safe for
// concurrent use.
type Command struct {
	Options
	DryRun bool
}

// RegisterFlags adds the command's flags to fl (Options.RegisterFlags,
// and --dry-run).
func (c *Command) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	c.Options.RegisterFlags(fl, getenv)
	fl.BoolVar(&c.DryRun, "dry-run", false, "print the Job (JSON, kubectl apply -f takes it) and create nothing")
}

// Run runs the worker command args as an Indexed Job (Run) under a name
// unique to this moment, until it ends, ctx ends or Ctrl-C or SIGTERM;
// with DryRun it prints the Job to stdout, its workers starting at an
// instant --setup from now, and creates nothing. Bad settings are
// ErrSettings before anything is created.
func (c *Command) Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sel, err := c.Check(args)
	if err != nil {
		return err
	}
	name := "katbench-" + strconv.FormatInt(time.Now().UnixNano()%1e10, 36)
	if c.DryRun {
		start := time.Now().Add(c.Setup).UTC().Truncate(time.Second).Add(time.Second)
		b, _ := json.MarshalIndent(Job(c.Options, name, sel, start, args), "", "  ")
		_, err := fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	ctx, stop := lifecycle.Interruptible(ctx)
	defer stop()
	return Run(ctx, c.Options, name, Job(c.Options, name, sel, time.Time{}, args), stdout, stderr)
}

// Release writes the start instant at (RFC 3339) to a worker's
// --start-file: what `katbench cluster release`, exec'd in each pod by
// Run, does once every worker is ready.
func Release(file, at string) error {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil || file == "" {
		return settingsf("--file %q --at %q: want a path and an RFC 3339 time", file, at)
	}
	return scenarios.WriteStartFile(file, t)
}
