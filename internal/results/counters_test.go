package results

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

var sink []*[64]byte

// The heap and system-call counters are the process's own: allocations and
// writes made between two snapshots show up, per operation.
func TestCountersCountWhatHappened(t *testing.T) {
	src := OpenCounters()
	t.Cleanup(func() { _ = src.Close() })
	f, err := os.Create(filepath.Join(t.TempDir(), "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const ops = 100
	a := src.Snapshot()
	for range ops {
		// The runtime counts small allocations when a span is refilled,
		// not one by one: 64 objects per operation fill many spans, so
		// the count cannot stay at a span boundary's 0.
		for range 64 {
			sink = append(sink, new([64]byte))
		}
		if _, err := f.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	b := src.Snapshot()
	var d CounterDelta
	d.Add(a, b)
	c := d.PerOp(ops)
	if c.Allocs == nil || *c.Allocs < 1 || c.AllocBytes == nil || *c.AllocBytes < 64 {
		t.Fatalf("allocs %v bytes %v per op; want ≥ 1 object and ≥ 64 B", c.Allocs, c.AllocBytes)
	}
	if c.WriteSyscalls == nil || *c.WriteSyscalls < 1 || c.ReadSyscalls == nil {
		t.Fatalf("write syscalls %v per op; want ≥ 1", c.WriteSyscalls)
	}
	// The PMU: on a host that has one, instructions were counted; on one
	// without (most VMs), the fields are absent, never 0, and the source
	// says why.
	if src.PMU() {
		if c.Instructions == nil || *c.Instructions <= 0 || c.Cycles == nil || *c.Cycles <= 0 {
			t.Fatalf("PMU open but instructions %v cycles %v", c.Instructions, c.Cycles)
		}
	} else {
		if c.Instructions != nil || c.Cycles != nil {
			t.Fatalf("no PMU, yet instructions %v cycles %v", c.Instructions, c.Cycles)
		}
		if src.PMUErr() == nil {
			t.Fatal("no PMU and no reason")
		}
		t.Logf("no PMU here: %v", src.PMUErr())
	}
	sink = nil
}

// A counter missing from any phase is absent from the sum; no operations
// give no counters at all.
func TestCounterDeltaAbsentNeverZero(t *testing.T) {
	full := CounterSnapshot{allocs: 10, bytes: 100, heapOK: true, syscr: 5, syscw: 5, ioOK: true}
	later := CounterSnapshot{allocs: 30, bytes: 300, heapOK: true, syscr: 9, syscw: 7, ioOK: true}
	noIO := CounterSnapshot{allocs: 40, bytes: 400, heapOK: true}
	var d CounterDelta
	d.Add(full, later)
	c := d.PerOp(2)
	if *c.Allocs != 10 || *c.AllocBytes != 100 || *c.ReadSyscalls != 2 || *c.WriteSyscalls != 1 {
		t.Fatalf("per op %+v", c)
	}
	d.Add(later, noIO)
	c = d.PerOp(2)
	if c.ReadSyscalls != nil || c.WriteSyscalls != nil || c.Allocs == nil || *c.Allocs != 15 {
		t.Fatalf("after a phase without /proc/self/io: %+v", c)
	}
	if !d.PerOp(0).Empty() {
		t.Fatal("counters for zero operations")
	}
	var merged CounterDelta
	merged.Merge(d)
	if *merged.PerOp(2).Allocs != 15 {
		t.Fatal("merge lost counts")
	}
}

func TestSnapshotFromContext(t *testing.T) {
	src := OpenCounters()
	t.Cleanup(func() { _ = src.Close() })
	ctx := WithCounters(context.Background(), src)
	if s := SnapshotFrom(ctx); !s.heapOK {
		t.Fatal("no heap counters from the context's source")
	}
	if s := SnapshotFrom(context.Background()); !s.heapOK || s.pmuOK {
		t.Fatalf("a context without a source: %+v", s)
	}
}
