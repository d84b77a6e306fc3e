package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/scenarios"
)

// serverCostFlags are the flags that say how a benchmark measures what
// the servers under test pay (the `server` field of every line).
type serverCostFlags struct {
	on      bool
	pids    string
	metrics string
}

func (f *serverCostFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.on, "server-cost", true, "measure each server's CPU, memory and store bytes per operation (servers on this host, found by their port; "+
		"rest and grpc then serve from a child `katbench serve` process) and the client's wire bytes per operation")
	fl.StringVar(&f.pids, "server-pid", "", "the server's processes PID[,PID…], instead of finding them by the server's port (its store is still found from its connections)")
	fl.StringVar(&f.metrics, "server-metrics", "", "the server's Prometheus endpoint URL (a server on another host), scraped before and after each measured phase")
}

// apply puts the settings into the run's options and returns the
// competitors' Config.ServeChild.
func (f *serverCostFlags) apply(o *scenarios.Options) ([]string, error) {
	if !f.on {
		if f.pids != "" || f.metrics != "" {
			return nil, usagef("--server-pid and --server-metrics need --server-cost")
		}
		return nil, nil
	}
	sc := scenarios.ServerCost{On: true, MetricsURL: f.metrics}
	if f.pids != "" && f.metrics != "" {
		return nil, usagef("--server-pid and --server-metrics are two ways to the same numbers: give one")
	}
	if f.metrics != "" && !strings.HasPrefix(f.metrics, "http://") && !strings.HasPrefix(f.metrics, "https://") {
		return nil, usagef("--server-metrics %q: want an http(s) URL like http://127.0.0.1:9000/q/metrics", f.metrics)
	}
	for p := range strings.SplitSeq(f.pids, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return nil, usagef("--server-pid %q: want process ids like 1234,1240", f.pids)
		}
		sc.PIDs = append(sc.PIDs, n)
	}
	o.ServerCost = sc
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
