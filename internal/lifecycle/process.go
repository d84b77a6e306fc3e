package lifecycle

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nordisk/katbench/transport"
)

// Process is what a command takes from the process that runs it: read
// once by cmd and passed down, so nothing below cmd reads the environment
// or the command line, and a test can run a command with its own. A
// value: safe to copy; its writers are as safe for concurrent use as the
// ones given.
type Process struct {
	// Command is the command line every line records
	// (results.CommandLine); nil for a run not started by one.
	Command        []string
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Transport are the transports' own settings from the environment
	// (transport.EnvSettings).
	Transport transport.Settings
	// ServeChild is the command with which our fronts serve from a child
	// process (ServeChild); nil: they stay in-process.
	ServeChild []string
}

// Bench starts the lifecycle s of a command run by p (New), on p's
// command line and writers.
func (p Process) Bench(s Settings) (*Bench, error) {
	s.Command = p.Command
	return New(s, p.Stdout, p.Stderr)
}

// ServeChild is the command with which rest and grpc serve from a child
// process: this executable, whatever it is called (`go build -o kb`), but
// not a test binary (`go test` runs PKG.test, which has no `serve`: the
// fronts then stay in-process and their lines say so).
func ServeChild() []string {
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(filepath.Base(exe), ".test") {
		return nil
	}
	return []string{exe}
}
