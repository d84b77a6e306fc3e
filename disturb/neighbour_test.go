package disturb

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
)

func TestNeighbourWritesOverAndOverAndRemovesItsFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "background-io")
	n, err := StartNeighbour(context.Background(), NeighbourConfig{Dir: dir, Size: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Stop() })
	// Three files' worth means the file was written, removed and written again.
	testenv.PollUntil(t, "the neighbour to write three files", func() bool { return n.Written() >= 9<<20 })
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(n.Path()) {
			t.Errorf("unexpected file %s beside the neighbour's", e.Name())
		}
	}
	if err := n.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	after := n.Written()
	if _, err := os.Stat(n.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Stop, %s: %v; want it removed", n.Path(), err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Stop, the directory it made: %v; want it removed", err)
	}
	if err := n.Stop(); err != nil || n.Written() != after {
		t.Errorf("second Stop: %v, written %d → %d; want nil and no more writes", err, after, n.Written())
	}
}

func TestNeighbourStopsWhenTheContextEnds(t *testing.T) {
	dir := t.TempDir() // exists before: the neighbour must leave it
	ctx, cancel := context.WithCancel(context.Background())
	n, err := StartNeighbour(ctx, NeighbourConfig{Dir: dir, Size: 64 << 20, Rate: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	testenv.PollUntil(t, "the first write", func() bool { return n.Written() > 0 })
	cancel()
	select {
	case <-n.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the neighbour did not stop when its context ended")
	}
	if err := n.Stop(); err != nil {
		t.Errorf("Stop after cancel: %v", err)
	}
	if _, err := os.Stat(n.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v; want it removed", n.Path(), err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a directory that was there before: %v; want it kept", err)
	}
	// 1 MiB/s for a moment: far from the 64 MiB file.
	if w := n.Written(); w >= 64<<20 {
		t.Errorf("wrote %d bytes at 1 MiB/s in the moment it ran; the rate is not kept", w)
	}
}

func TestNeighbourWriteError(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file should be: its open fails.
	if err := os.Mkdir(filepath.Join(dir, "neighbour.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, err := StartNeighbour(context.Background(), NeighbourConfig{Dir: dir, Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Done(): // it stops by itself
	case <-time.After(30 * time.Second):
		t.Fatal("a neighbour that cannot write kept running")
	}
	if err := n.Stop(); err == nil {
		t.Error("Stop returned nil for a neighbour that could not write: a run would claim background I/O it did not have")
	}
}

func TestNeighbourConfigValidate(t *testing.T) {
	for _, c := range []NeighbourConfig{
		{Size: 1 << 20},
		{Dir: "d"},
		{Dir: "d", Size: -1},
		{Dir: "d", Size: 1 << 20, Rate: -1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
		if _, err := StartNeighbour(context.Background(), c); err == nil {
			t.Errorf("StartNeighbour(%+v) started", c)
		}
	}
	if err := (NeighbourConfig{Dir: "d", Size: 1}).Validate(); err != nil {
		t.Errorf("a valid config: %v", err)
	}
}

func TestNeighbourWait(t *testing.T) {
	cases := []struct {
		written, rate int64
		elapsed, want time.Duration
	}{
		{written: 1 << 30, rate: 0, elapsed: 0, want: 0},                           // unthrottled
		{written: 1 << 20, rate: 1 << 20, elapsed: 0, want: time.Second},           // one second ahead
		{written: 1 << 20, rate: 1 << 20, elapsed: time.Second, want: 0},           // on time
		{written: 1 << 20, rate: 1 << 20, elapsed: 3 * time.Second, want: 0},       // behind: no wait, no debt
		{written: 4 << 20, rate: 2 << 20, elapsed: time.Second, want: time.Second}, // half-way
	}
	for _, c := range cases {
		if got := neighbourWait(c.written, c.rate, c.elapsed); got != c.want {
			t.Errorf("neighbourWait(%d, %d, %v) = %v, want %v", c.written, c.rate, c.elapsed, got, c.want)
		}
	}
}

func TestNeighbourSinkStampsLines(t *testing.T) {
	n, err := StartNeighbour(context.Background(), NeighbourConfig{Dir: t.TempDir(), Size: 2 << 20, Rate: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Stop() })
	testenv.PollUntil(t, "the first write", func() bool { return n.Written() > 0 })
	var got []results.Record
	sink := n.Sink(results.SinkFunc(func(r results.Record) error { got = append(got, r); return nil }))
	orig := map[string]any{"flush": "uring"}
	if err := sink.Write(results.Record{Scenario: "s", Params: orig}); err != nil {
		t.Fatal(err)
	}
	if err := sink.Write(results.Record{Scenario: "skipped", Skipped: "why"}); err != nil {
		t.Fatal(err)
	}
	r := got[0]
	if r.Params["flush"] != "uring" || r.Params["background_io_bytes"] != int64(2<<20) || r.Params["background_io_rate_b"] != int64(4<<20) {
		t.Errorf("params = %v; want the line's own and the neighbour's size and rate", r.Params)
	}
	if _, ok := orig["background_io_bytes"]; ok {
		t.Error("the sink changed the caller's params map")
	}
	if v, ok := r.MeasureValue("background_io_written"); !ok || v <= 0 {
		t.Errorf("background_io_written = %v, %v; want the bytes written so far", v, ok)
	}
	if _, ok := r.MeasureValue("background_io_mib_s"); !ok {
		t.Error("no background_io_mib_s measure")
	}
	if len(got[1].Measures) != 0 || got[1].Params["background_io_bytes"] == nil {
		t.Errorf("a skipped line: measures %v, params %v; want no measures and the params", got[1].Measures, got[1].Params)
	}
}
