package main

import (
	"os"
	"path/filepath"

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
// process: this executable, when it is katbench (under `go test` it is a
// test binary that has no `serve`, and the fronts stay in-process).
func serveChild() []string {
	exe, err := os.Executable()
	if err != nil || filepath.Base(exe) != "katbench" {
		return nil
	}
	return []string{exe}
}
