package pacer

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done, whichever comes first; d ≤ 0
// returns at once. It is the one cancellable pause of the tool (cool-downs,
// retries, pacing between phases); safe for concurrent use.
func Sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
