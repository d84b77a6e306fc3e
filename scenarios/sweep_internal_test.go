package scenarios

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

func TestParseSizes(t *testing.T) {
	for in, want := range map[string][]int{
		"200":            {200},
		"1k,10k,100k,1M": {1000, 10_000, 100_000, 1_000_000},
		" 5 , 2K ":       {5, 2000},
	} {
		got, err := ParseSizes(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1k", "10k,1k", "1k,1k", "1G", "ten"} {
		if got, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) = %v, want an error", bad, got)
		}
	}
}

// countingObserver counts the windows the measuring loops open.
type countingObserver struct{ begins, ends int }

func (c *countingObserver) Begin(context.Context) { c.begins++ }
func (c *countingObserver) End(context.Context)   { c.ends++ }

// TestMeasuringLoopsOpenOneWindow: each measuring loop tells its
// observer once that the measured phase begins and once that it ends.
func TestMeasuringLoopsOpenOneWindow(t *testing.T) {
	op := func(context.Context, int, int) error { return nil }
	for name, run := range map[string]func(ctx context.Context){
		"latency":    func(ctx context.Context) { Latency(ctx, op, 0, 1, 2, 10) },
		"throughput": func(ctx context.Context) { ThroughputAtLeast(ctx, op, 2, 0, 0, 5) },
	} {
		var c countingObserver
		run(withWindow(context.Background(), &c))
		if c.begins != 1 || c.ends != 1 {
			t.Errorf("%s: %d begins, %d ends; want one window", name, c.begins, c.ends)
		}
	}
}

// fakeSplit is a TimeSplitter whose sums a test sets.
type fakeSplit struct{ s competitors.TimeSplit }

func (f *fakeSplit) TimeSplit() competitors.TimeSplit { return f.s }

// fakeWire is a WireCounter whose count a test sets.
type fakeWire struct{ n int64 }

func (f *fakeWire) WireBytes() int64 { return f.n }

// TestServerTotalsStamp: per-operation values from the window's
// differences, and absent values with their reasons, never 0.
func TestServerTotalsStamp(t *testing.T) {
	ctx := context.Background()
	wire, split := &fakeWire{n: 1000}, &fakeSplit{}
	acc := &serverTotals{}
	w := &serverWindows{wire: wire, split: split, acc: acc}
	w.Begin(ctx)
	wire.n += 4000
	split.s = competitors.TimeSplit{Requests: 4, Head: 400 * time.Microsecond, Body: 40 * time.Microsecond,
		Server: 8 * time.Microsecond, ServerTimed: 4}
	w.End(ctx)
	rec := results.Record{Params: map[string]any{}, MeanUS: 200}
	acc.stamp(&rec, 4, "no server: the catalog runs in the benchmark's own process")
	if rec.WireBytesPerOp == nil || *rec.WireBytesPerOp != 1000 {
		t.Errorf("wire bytes per op = %v, want 1000", rec.WireBytesPerOp)
	}
	if rec.Server != nil || rec.Params["server_cost_absent"] == nil {
		t.Errorf("server = %+v, params %v; want absent with a reason", rec.Server, rec.Params)
	}
	tp := rec.TimeParts
	if tp == nil || tp.ServerSource != "server-timing" || tp.ServerUS != 2 || tp.HeadUS != 100 || tp.TransferUS != 10 ||
		tp.ClientUS == nil || *tp.ClientUS != 90 {
		t.Errorf("time parts = %+v, want server 2 (server-timing), head 100, transfer 10, client 90", tp)
	}

	var none *serverTotals
	rec = results.Record{Params: map[string]any{}}
	none.stamp(&rec, 10, "")
	if rec.Server != nil || rec.WireBytesPerOp != nil || rec.Params["server_cost_absent"] == nil {
		t.Errorf("no window: server %+v wire %v params %v; want both absent with a reason", rec.Server, rec.WireBytesPerOp, rec.Params)
	}
}

// TestSweepSettings: several sizes make a sweep starting at the first
// size's shape; a budget without a sweep is refused.
func TestSweepSettings(t *testing.T) {
	s := Settings{Quick: true, Tables: 1000, Sizes: []int{1000, 100_000}, SetupBudget: time.Minute, Parallel: 4, Rounds: 1, RateWorkers: 16}
	o, err := s.Options("r")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Sizes, s.Sizes) || o.Shape != dataset.SweepShape(s.Sizes, 1000, 0) || o.SetupBudget != time.Minute {
		t.Fatalf("options sizes %v shape %+v budget %v", o.Sizes, o.Shape, o.SetupBudget)
	}
	s.Sizes = nil
	if _, err := s.Options("r"); err == nil || !strings.Contains(err.Error(), "growth sweep") {
		t.Fatalf("--setup-budget without a sweep: %v, want the sweep it needs", err)
	}
}
