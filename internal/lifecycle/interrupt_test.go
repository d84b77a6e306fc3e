package lifecycle

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chanWriter hands each write to the test, whatever goroutine makes it.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) { w <- string(p); return len(p), nil }

// waitDone waits for ctx to end, failing after a generous deadline (the
// signal's delivery is the event waited for, not a sleep).
func waitDone(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatalf("%s never ended", what)
	}
}

// TestInterruptTwice: the first SIGINT ends the measuring and says the
// cleanup goes on; the cleanup ends only at the second; stop releases all.
func TestInterruptTwice(t *testing.T) {
	log := make(chanWriter, 4)
	measure, cleanup, stop := interruptTwice(context.Background(), log)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitDone(t, measure, "the measuring context")
	if msg := <-log; !strings.Contains(msg, "interrupt again") {
		t.Errorf("first interrupt said %q, want how to stop the cleanup", msg)
	}
	if cleanup.Err() != nil {
		t.Fatal("the first interrupt ended the cleanup too")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitDone(t, cleanup, "the cleanup context")
}

// TestInterruptTwiceStop: stop, with no signal, ends both contexts and
// lets go of the signals.
func TestInterruptTwiceStop(t *testing.T) {
	measure, cleanup, stop := interruptTwice(context.Background(), make(chanWriter, 1))
	stop()
	stop() // twice is harmless
	if measure.Err() == nil || cleanup.Err() == nil {
		t.Fatalf("after stop: measure %v, cleanup %v; want both ended", measure.Err(), cleanup.Err())
	}
}
