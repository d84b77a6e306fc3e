package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nordisk/katbench/internal/servercost"
	"github.com/nordisk/katbench/scenarios"
)

// applyServerCost puts the server-cost settings into the run's options and
// returns the competitors' Config.ServeChild.
func applyServerCost(f servercost.Settings, o *scenarios.Options) ([]string, error) {
	pids, err := f.Check()
	if err != nil || !f.On {
		return nil, err
	}
	o.ServerCost = scenarios.ServerCost{On: true, PIDs: pids, MetricsURL: f.MetricsURL}
	return serveChild(), nil
}

// serveChild is the command with which rest and grpc serve from a child
// process: this executable, whatever it is called (`go build -o kb`), but
// not a test binary (`go test` runs PKG.test, which has no `serve`: the
// fronts then stay in-process and their lines say so).
func serveChild() []string {
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(filepath.Base(exe), ".test") {
		return nil
	}
	return []string{exe}
}
