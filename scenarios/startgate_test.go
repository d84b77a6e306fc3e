package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWaitStartFile: the worker waits, tick after tick, while the file is
// absent, and returns the instant once it is written.
func TestWaitStartFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "start")
	tick := make(chan time.Time) // unbuffered: a send proves the waiter is still waiting
	type result struct {
		at  time.Time
		err error
	}
	res := make(chan result, 1)
	go func() {
		at, err := WaitStartFile(context.Background(), path, tick)
		res <- result{at, err}
	}()
	send := func() {
		select {
		case tick <- time.Time{}:
		case r := <-res:
			t.Fatalf("returned %v, %v before the start file was written", r.at, r.err)
		case <-time.After(time.Minute):
			t.Fatal("the waiter took no tick for a minute")
		}
	}
	send()
	send()
	want := time.Date(2026, 12, 4, 6, 0, 0, 123e6, time.UTC)
	if err := WriteStartFile(path, want); err != nil {
		t.Fatal(err)
	}
	// The waiter returns on its next read: the tick it last took, or one more.
	for done := false; !done; {
		select {
		case tick <- time.Time{}:
		case r := <-res:
			if r.err != nil || !r.at.Equal(want) {
				t.Fatalf("got %v, %v; want %v", r.at, r.err, want)
			}
			done = true
		case <-time.After(time.Minute):
			t.Fatal("no start instant a minute after the file was written")
		}
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left: %v", err)
	}
	os.WriteFile(path, []byte("soon"), 0o644)
	if _, err := WaitStartFile(context.Background(), path, nil); err == nil {
		t.Error("a start file without a time was accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WaitStartFile(ctx, filepath.Join(t.TempDir(), "never"), nil); err == nil {
		t.Error("a cancelled wait returned no error")
	}
}
