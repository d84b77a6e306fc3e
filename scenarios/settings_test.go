package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/bench"
)

func goodSettings() Settings {
	return Settings{Quick: true, Parallel: 4, Rounds: 1, RateWorkers: 16, ServerWarmup: "auto", Mix: MixSettings{Seed: 1}}
}

func TestSettingsOptions(t *testing.T) {
	s := goodSettings()
	s.Threads, s.ThreadsSet = "2, 8", true
	s.Warmup, s.ServerWarmup = time.Millisecond, "3s"
	o, err := s.Options("r1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Threads, []int{2, 8}) || o.Warmup != time.Millisecond || o.ServerWarmup != 3*time.Second || o.Namespace != "katbench_r1" {
		t.Errorf("options: threads %v warmup %v server %v namespace %q", o.Threads, o.Warmup, o.ServerWarmup, o.Namespace)
	}
	s = goodSettings()
	s.Shard = ShardSettings{Shards: 4, JobIndex: "1", StartAt: "2026-12-01T06:00:00Z"}
	s.Namespace = "ns"
	o, err = s.Options("r1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Extra["shard"] != "1/4" || o.Namespace != "ns_s1" || o.LatencyOps != 250 || o.StartAt.IsZero() {
		t.Errorf("shard options: %v %q ops %d start %v", o.Extra, o.Namespace, o.LatencyOps, o.StartAt)
	}
}

func TestSettingsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Settings)
		want string
	}{
		{"negative tables", func(s *Settings) { s.Tables = -1 }, "--tables"},
		{"threads", func(s *Settings) { s.Threads = "1,x" }, "--threads"},
		{"rounds", func(s *Settings) { s.Rounds = 0 }, "--rounds"},
		{"server warmup", func(s *Settings) { s.ServerWarmup = "soon" }, "--server-warmup"},
		{"empty namespace", func(s *Settings) { s.NamespaceSet = true }, "--namespace"},
		{"shards without index", func(s *Settings) { s.Shard.Shards = 3 }, "JOB_COMPLETION_INDEX"},
		{"shard out of range", func(s *Settings) { s.Shard.Spec = "3/3" }, "--shard"},
		{"start-at", func(s *Settings) { s.Shard.StartAt = "tomorrow" }, "--start-at"},
		{"rate", func(s *Settings) { s.Rate = -1 }, "--rate"},
		{"rate workers", func(s *Settings) { s.RateWorkers = 0 }, "--rate-workers"},
		{"keys without mix", func(s *Settings) { s.Mix.Keys = "zipf:1.1" }, "give --mix"},
		{"mix with scenario", func(s *Settings) { s.Mix.Mix, s.ScenarioSet = "read-heavy", true }, "--scenario with --mix"},
		{"poisson without rate", func(s *Settings) { s.Mix.Mix, s.Mix.Arrivals = "read-heavy", "poisson" }, "--rate"},
		{"capacity without mix", func(s *Settings) { s.Mix.Capacity = &CapacitySettings{} }, "--mix"},
		{"capacity without slo", func(s *Settings) { s.Mix.Mix, s.Mix.Capacity = "read-heavy", &CapacitySettings{} }, "--slo"},
	} {
		s := goodSettings()
		tc.edit(&s)
		_, err := s.Options("r1")
		if !errors.Is(err, bench.ErrSettings) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrSettings naming %s", tc.name, err, tc.want)
		}
	}
}

func TestParseTestDelay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want TestDelay
		ok   bool
	}{
		{"", TestDelay{}, true},
		{"40", TestDelay{Per: 40 * time.Microsecond}, true},
		{"rest:2.5", TestDelay{Per: 2500 * time.Nanosecond, Target: "rest"}, true},
		{"x", TestDelay{}, false},
		{"rest:-1", TestDelay{}, false},
		{"2000000", TestDelay{}, false},
	} {
		got, err := ParseTestDelay(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseTestDelay(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestFloors(t *testing.T) {
	o, err := goodSettings().Options("r1")
	if err != nil {
		t.Fatal(err)
	}
	if got := FileFloors([]string{"embedded", "sql"}, o); !slices.Equal(got, []string{"fs-floor"}) {
		t.Errorf("Floors(embedded, sql) = %q, want [fs-floor]", got)
	}
	if got := FileFloors([]string{"embedded", "fs-floor"}, o); len(got) != 0 {
		t.Errorf("a floor already a target was added again: %q", got)
	}
	o.Durability = "eventual"
	if got := FileFloors([]string{"embedded"}, o); len(got) != 0 {
		t.Errorf("floor beside an eventual run: %q", got)
	}
	s := goodSettings()
	s.Scenario = "load_table.latency"
	o, _ = s.Options("r1")
	if got := FileFloors([]string{"embedded"}, o); len(got) != 0 {
		t.Errorf("floor for a run of no write scenario: %q", got)
	}
}
