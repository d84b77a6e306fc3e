package servercost

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/usage"
)

// ErrSettings is wrapped by Settings.Check's errors: a flag the user gave
// is wrong, and nothing has been measured.
var ErrSettings = errors.New("bad server-cost settings")

// Settings are the flags that say how a benchmark measures what the
// servers under test pay (the `server` field of every line). A value:
// safe to copy.
type Settings struct {
	On         bool
	pids       string
	MetricsURL string
}

// RegisterFlags adds --server-cost, --server-pid and --server-metrics to fl.
func (f *Settings) RegisterFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&f.On, "server-cost", true, "measure each server's CPU, memory and store bytes per operation (servers on this host, found by their port; "+
		"rest and grpc then serve from a child `katbench serve` process) and the client's wire bytes per operation")
	fl.StringVar(&f.pids, "server-pid", "", "the server's processes PID[,PID…], instead of finding them by the server's port (its store is still found from its connections)")
	fl.StringVar(&f.MetricsURL, "server-metrics", "", "the server's Prometheus endpoint URL (a server on another host), scraped before and after each measured phase")
}

// Check validates the settings and returns the server's process ids
// given by --server-pid (none: found by port).
func (f Settings) Check() ([]int, error) {
	if !f.On {
		if f.pids != "" || f.MetricsURL != "" {
			return nil, usage.Errorf(ErrSettings, "--server-pid and --server-metrics need --server-cost")
		}
		return nil, nil
	}
	if f.pids != "" && f.MetricsURL != "" {
		return nil, usage.Errorf(ErrSettings, "--server-pid and --server-metrics are two ways to the same numbers: give one")
	}
	if f.MetricsURL != "" && !strings.HasPrefix(f.MetricsURL, "http://") && !strings.HasPrefix(f.MetricsURL, "https://") {
		return nil, usage.Errorf(ErrSettings, "--server-metrics %q: want an http(s) URL like http://127.0.0.1:9000/q/metrics", f.MetricsURL)
	}
	var pids []int
	for p := range strings.SplitSeq(f.pids, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return nil, usage.Errorf(ErrSettings, "--server-pid %q: want process ids like 1234,1240", f.pids)
		}
		pids = append(pids, n)
	}
	return pids, nil
}
