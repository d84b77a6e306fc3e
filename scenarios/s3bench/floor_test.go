package s3bench_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
)

// TestRunFloor: --floor adds a lane with target floor beside the
// transports, closed loop and open loop alike: every cell measured with
// no error (its GETs and ranged GETs verified byte for byte against what
// the run wrote through it), its CPU per operation measured and scoped
// to the client alone, and its lines saying what the floor is; the store
// is left as clean as without it.
func TestRunFloor(t *testing.T) {
	ctl := startControl(t)
	cfg := tiny(ctl.URL(), "control", "k", "s")
	cfg.Transports = []transport.Kind{"http"}
	cfg.ClientFloor = true
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLines(t, got.Records, cfg, []string{"http", "floor"}, "control")
	for _, r := range got.Records {
		note, _ := r.Params["floor"].(string)
		scope, _ := r.Params["cpu_scope"].(string)
		switch r.Target {
		case "floor":
			if !strings.Contains(note, "answered from memory") || !strings.Contains(scope, "the store idle") || r.Transport != "floor" {
				t.Errorf("%s floor line: params.floor %q, cpu_scope %q, transport %q", r.Scenario, note, scope, r.Transport)
			}
		default:
			if note != "" || strings.Contains(scope, "idle") {
				t.Errorf("%s %s line: params.floor %q, cpu_scope %q", r.Target, r.Scenario, note, scope)
			}
		}
	}
	if left := objectsLeft(t, cfg.S3); len(left) != 0 {
		t.Errorf("objects left after the run: %v", left)
	}

	// Ranged GETs and the open loop: the floor's lines come with the
	// transports', every operation verified and none failing.
	cfg.Ops, cfg.Sizes, cfg.Concurrency = []s3bench.Op{s3bench.Range, s3bench.Head}, nil, []int{2}
	cfg.Rates, cfg.Duration = []s3bench.Rate{{OpsSec: 200}}, 100*time.Millisecond
	got = results.Collector{}
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatalf("Run with ranges and a rate: %v", err)
	}
	seen := map[string]bool{}
	for _, r := range got.Records {
		seen[r.Target+" "+r.Scenario] = true
		if r.Errors != 0 || r.Ops == 0 {
			t.Errorf("%s %s: ops %d errors %d (%s)", r.Target, r.Scenario, r.Ops, r.Errors, r.FirstError)
		}
	}
	for _, want := range []string{"floor s3.range.8KiB.c2", "floor s3.range.8KiB.c2.open.200ops", "floor s3.head.c2.open.200ops", "http s3.head.c2.open.200ops"} {
		if !seen[want] {
			t.Errorf("no line %q in %v", want, seen)
		}
	}
}

// TestFloorRejectsList: the floor does not answer listings, so --floor
// with the list op is refused before anything runs.
func TestFloorRejectsList(t *testing.T) {
	o := s3bench.Options{Ops: "head,list", Sizes: "4KiB", Concurrency: "1", Transports: "http", Baseline: "http",
		Duration: time.Second, Seed: 1, Rounds: 1, ClientFloor: true}
	_, err := o.Config()
	if oe := (*bench.OptionError)(nil); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "--floor:") || !strings.Contains(err.Error(), "list") {
		t.Fatalf("Config with --floor and list: %v, want an error naming --floor and list", err)
	}
	o.Ops = "head,get,range,put"
	if c, err := o.Config(); err != nil || !c.ClientFloor {
		t.Fatalf("Config with --floor and the ops it answers: %v (floor %v)", err, c.ClientFloor)
	}
}
