package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/lifecycle"
	"github.com/nordisk/katbench/internal/results"
)

// invocation is the command line katbench was started with, set by main
// (nil when the commands run inside a test). Every run stamps it on its
// lines, so a result in a history file names the command that produced it.
var invocation []string

// process is what cmd's command hands the package that runs it: the
// command line, its writers, the environment, the transports' settings
// and the executable our fronts serve from.
func process(cmd *cobra.Command) lifecycle.Process {
	return lifecycle.Process{Command: results.CommandLine("katbench", invocation), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
		Getenv: os.Getenv, Transport: transportSettings, ServeChild: lifecycle.ServeChild()}
}
