// Command katbench benchmarks Apache Iceberg catalogs and S3 byte paths side
// by side. Each subcommand lives in its own file; behaviour lives in the
// packages they call.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/ab"
	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/cluster"
	"github.com/nordisk/katbench/internal/commitcheck"
	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/servercost"
	"github.com/nordisk/katbench/internal/usage"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
	"github.com/spf13/cobra"
)

var rootCmd = &cobra.Command{
	Use:   "katbench",
	Short: "Benchmark Iceberg catalogs and S3 byte paths, side by side, honestly",
	Long: `katbench measures Apache Iceberg catalogs (embedded bbolt, our REST and gRPC
fronts, Nessie, Polaris, iceberg-go's SQL catalog) with identical scenarios,
and S3 byte transports (net/http vs io_uring), and prints one JSON line per
scenario with HdrHistogram percentiles and host provenance.`,
	SilenceUsage:  true,
	SilenceErrors: true,
	// A KATBENCH_URING_WAIT typo would otherwise measure the default wait
	// under the name of another: refuse it before anything runs.
	PersistentPreRunE: func(*cobra.Command, []string) (err error) {
		transportSettings, err = transport.EnvSettings(os.LookupEnv)
		return asUsage(err)
	},
}

// transportSettings are the transports' own settings from the environment
// (each names its variables, e.g. the io_uring wait mode), read once before
// any command runs and passed down as options.
var transportSettings transport.Settings

// serveCmd is the parent of `katbench serve rest|grpc` (internal/serve).
var serveCmd = &cobra.Command{
	Use:   "serve",
	Short: "Serve the embedded catalog over a network front (rest, grpc)",
}

func init() {
	rootCmd.AddCommand(serveCmd)
	// --version: computed when asked for (the commit may take a git call).
	rootCmd.Version = "set by the template"
	cobra.AddTemplateFunc("katbenchVersion", results.Version)
	rootCmd.SetVersionTemplate("{{katbenchVersion}}\n")
}

// errCommandLine is the kind of the usage errors cmd finds itself: a flag
// or an argument that is wrong (exit 2).
var errCommandLine = errors.New("bad command line")

func usagef(format string, args ...any) error {
	return usage.Errorf(errCommandLine, format, args...)
}

// usageErrs are the errors of the packages cmd calls that are always the
// user's input (exit 2 wherever they come from).
var usageErrs = []error{bench.ErrSettings, cluster.ErrSettings, commitcheck.ErrSettings, lifecycle.ErrSettings, servercost.ErrSettings, output.ErrFormat, workspace.ErrSettings, serve.ErrSettings, analysis.ErrNoCommonCells, analysis.ErrInput, ab.ErrBadOptions}

// isUsage reports whether err is a usage error (exit 2).
func isUsage(err error) bool {
	var ue usage.Error
	if errors.As(err, &ue) {
		return true
	}
	for _, u := range usageErrs {
		if errors.Is(err, u) {
			return true
		}
	}
	return false
}

// asUsage makes err (unless nil) a usage error.
func asUsage(err error) error {
	return usage.Wrap(errCommandLine, err)
}

// usageArgs makes every command's argument check a usage error (exit 2).
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error { return asUsage(check(cmd, args)) }
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

func main() {
	// A closed stdout (`katbench run … | head`) must not kill the process
	// before it cleans up: writes then fail with EPIPE, which ends the run
	// the ordinary way (cleanup, then a non-zero exit).
	signal.Ignore(syscall.SIGPIPE)
	invocation = os.Args[1:]
	usageArgs(rootCmd)
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "katbench:", results.RedactText(err.Error()))
		if isUsage(err) || strings.HasPrefix(err.Error(), "unknown command") {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
