package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/dataset"
)

// parseFlags registers Settings' flags on a fresh set, parses args and
// returns the settings as FromFlags leaves them.
func parseFlags(t *testing.T, env map[string]string, args ...string) Settings {
	t.Helper()
	var s Settings
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	s.RegisterFlags(fl, func(k string) string { return env[k] })
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	s.FromFlags(fl)
	return s
}

// TestRegisterFlagsDefaults: the flags' defaults are the ones Options
// expects, the environment sets --quick and --durability, and a flag
// given is recorded as given.
func TestRegisterFlagsDefaults(t *testing.T) {
	s := parseFlags(t, map[string]string{"BENCH_QUICK": "1", "BENCH_DURABILITY": "eventual"}, "--namespace", "ns", "--threads", "2")
	if !s.Quick || s.Durability != "eventual" || s.Parallel != 4 || s.Rounds != 1 || s.RateWorkers != 16 || s.Mix.Seed != 1 ||
		s.History.Tables != 3 || s.History.Build != dataset.HistoryAuto || s.Background.Rate != "128MiB" || s.ServerWarmup != "auto" {
		t.Fatalf("defaults: %+v", s)
	}
	if !s.NamespaceSet || !s.ThreadsSet || s.ScenarioSet || !s.Given("threads") || s.Given("rounds") {
		t.Fatalf("given: namespace %v threads %v scenario %v", s.NamespaceSet, s.ThreadsSet, s.ScenarioSet)
	}
	o, err := s.Options("r1")
	if err != nil || o.Namespace != "ns" || len(o.Threads) != 1 || o.Threads[0] != 2 {
		t.Fatalf("Options: %+v, %v", o, err)
	}
}

// TestHistorySettings: levels are checked into Options.History; shaping
// flags without levels, an empty --snapshots and a page size out of range
// are ErrSettings naming the flag.
func TestHistorySettings(t *testing.T) {
	s := parseFlags(t, nil, "--quick", "--snapshots", "0,100", "--history-tables", "2", "--page-size", "50")
	o, err := s.Options("r1")
	if err != nil || len(o.History.Levels) != 2 || o.History.Levels[1] != 100 || o.History.Tables != 2 || o.PageSize != 50 {
		t.Fatalf("Options: history %+v page %d, %v", o.History, o.PageSize, err)
	}
	for args, want := range map[string]string{
		"--snapshots=":                       "--snapshots ''",
		"--history-build=commits":            "give --snapshots too",
		"--page-size=0":                      "--page-size 0: want 1..10000",
		"--snapshots=10,10":                  "given twice",
		"--snapshots=x":                      `"x" is not a snapshot count`,
		"--snapshots=5 --history-build=copy": `history build "copy"`,
	} {
		s := parseFlags(t, nil, strings.Fields(args)...)
		if _, err := s.Options("r1"); !errors.Is(err, bench.ErrSettings) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want ErrSettings naming %q", args, err, want)
		}
	}
}

// TestCheckDisk: a history far larger than any disk is refused with the
// estimate; none at all is never refused.
func TestCheckDisk(t *testing.T) {
	s := parseFlags(t, nil, "--snapshots", "0,100000", "--history-tables", "1000")
	o, err := s.Options("r1")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDisk(o, t.TempDir(), 2); !errors.Is(err, bench.ErrSettings) || !strings.Contains(err.Error(), "the history tables need about") {
		t.Fatalf("CheckDisk = %v; want ErrSettings with the estimate", err)
	}
	if err := CheckDisk(Options{}, "", 2); err != nil {
		t.Fatalf("no history: %v", err)
	}
}

// TestByteSize formats estimates in binary units.
func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 30: "3.0 GiB", 5 << 40: "5.0 TiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCapacityRefusesUnusedFlags: every run flag a capacity search does
// not use is refused when given, naming it; the same flags pass a run.
func TestCapacityRefusesUnusedFlags(t *testing.T) {
	base := []string{"--quick", "--mix", "read-heavy"}
	for name, v := range map[string]string{"threads": "4", "duration": "1s", "full": "true", "snapshots": "0,10",
		"history-tables": "2", "history-build": "commits", "page-size": "10", "rate": "0"} {
		s := parseFlags(t, nil, append(base, "--"+name+"="+v)...)
		s.Mix.Capacity = &CapacitySettings{SLO: "p99<=1s", Start: 10, MaxRate: 100, Factor: 2, Bisect: 2, Precision: 0.1, Keep: 0.9, StepOps: -1}
		_, err := s.Options("r1")
		if !errors.Is(err, bench.ErrSettings) || !strings.HasPrefix(err.Error(), "--"+name+" with capacity") {
			t.Errorf("capacity --%s: %v; want ErrSettings refusing it", name, err)
		}
	}
	s := parseFlags(t, nil, append(base, "--rate", "100")...)
	s.Mix.Capacity = &CapacitySettings{SLO: "p99<=1s"}
	if _, err := s.Options("r1"); err == nil || !strings.Contains(err.Error(), "the search chooses the rates") {
		t.Errorf("capacity --rate 100: %v; want the rate's own message", err)
	}
	for args, want := range map[string]int{"": CapacityWorkers, "--rate-workers=8": 8} {
		s := parseFlags(t, nil, append(base, strings.Fields(args)...)...)
		s.Mix.Capacity = &CapacitySettings{SLO: "p99<=1s", Start: 10, MaxRate: 100, Factor: 2, Bisect: 2, Precision: 0.1, Keep: 0.9, StepOps: -1}
		if o, err := s.Options("r1"); err != nil || o.OpenWorkers != want {
			t.Errorf("capacity %q: workers %d, %v; want %d", args, o.OpenWorkers, err, want)
		}
	}
	s = parseFlags(t, nil, append(base, "--threads", "4")...)
	if _, err := s.Options("r1"); err != nil {
		t.Errorf("run --mix --threads 4: %v; want it accepted", err)
	}
}
