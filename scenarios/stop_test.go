package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// TestStopReason: a run stopped by a signal says "interrupted", not the
// context's cancellation, and keeps any other error; a closed stdout says
// so instead of a bare EPIPE.
func TestStopReason(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	other := errors.New("clean up rest: boom")
	cases := []struct {
		name      string
		ctx       context.Context
		err       error
		want      []string
		wantNot   string
		interrupt bool
	}{
		{"signal", cancelled, fmt.Errorf("rest load_table.latency: %w", context.Canceled), []string{"interrupted"}, "context canceled", true},
		{"signal, cleanup failed too", cancelled, errors.Join(context.Canceled, other), []string{"interrupted", "boom"}, "context canceled", true},
		{"signal, nothing failed", cancelled, nil, []string{"interrupted"}, "", true},
		{"closed stdout", context.Background(), fmt.Errorf("write /dev/stdout: %w", syscall.EPIPE), []string{"stdout was closed", "broken pipe"}, "interrupted", false},
	}
	for _, c := range cases {
		err := StopReason(c.ctx, c.err)
		if err == nil {
			t.Fatalf("%s: nil error", c.name)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
		if c.wantNot != "" && strings.Contains(err.Error(), c.wantNot) {
			t.Errorf("%s: %q says %q", c.name, err, c.wantNot)
		}
		if errors.Is(err, ErrInterrupted) != c.interrupt {
			t.Errorf("%s: errors.Is(interrupted) = %v", c.name, !c.interrupt)
		}
	}
	if err := StopReason(context.Background(), nil); err != nil {
		t.Errorf("a run that ended normally: %v", err)
	}
}
