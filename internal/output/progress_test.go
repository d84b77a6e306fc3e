package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// TestProgressPlainLines: off a terminal, each task prints at most one line
// per tenth and always its end, with the time it took so far and what is
// left at its pace; status lines pass through.
func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clock time.Time
	p.now = func() time.Time { return clock }
	for i := 1; i <= 1000; i++ {
		clock = t0.Add(time.Duration(i) * 100 * time.Millisecond) // one update every 100ms
		p.Update("rest: tables", i, 1000)
	}
	fmt.Fprintln(p, "rest: load_table.latency")
	p.Update("rest: drop tables", 0, 0) // nothing to do: no line
	p.Close()
	p.Update("late", 1, 1) // after Close: ignored
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(got) != 12 {
		t.Fatalf("%d lines, want 10 tenths + the end + the status line:\n%s", len(got), b.String())
	}
	if got[5] != "rest: tables: 500/1000 (50%, 50s elapsed, about 50s left)" {
		t.Errorf("halfway line %q, want the elapsed time and the time left at that pace", got[5])
	}
	if got[0] != "rest: tables: 1/1000 (0%)" || got[10] != "rest: tables: 1000/1000 (100%)" || got[11] != "rest: load_table.latency" {
		t.Fatalf("lines:\n%s", b.String())
	}
}

// TestProgressBarsOnTerminal draws real bars on a pseudo-terminal and checks
// they end complete and Close returns (an unfinished bar must not hang it).
func TestProgressBarsOnTerminal(t *testing.T) {
	master, slave := testenv.OpenPTY(t)
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master)
		read <- b
	}()
	if !UseBars(slave, io.Discard, "table") {
		t.Fatal("useBars: a terminal stderr with the table format should get bars")
	}
	if UseBars(slave, slave, "jsonl") {
		t.Fatal("useBars: JSONL streaming to the same terminal must not get bars")
	}
	p := NewProgress(slave, true)
	for i := 0; i <= 50; i++ {
		p.Update("grpc: tables", i, 50)
	}
	fmt.Fprintln(p, "grpc: status line")
	p.Update("grpc: drop tables", 3, 50) // left unfinished
	p.Close()
	slave.Close()
	out := string(<-read)
	if !strings.Contains(out, "grpc: tables  ") || !strings.Contains(out, "grpc: tables: 50/50 (100%)") || !strings.Contains(out, "[=") {
		t.Fatalf("no complete bar drawn: %q", out)
	}
	if !strings.Contains(out, "grpc: status line") {
		t.Fatalf("status line lost: %q", out)
	}
}
