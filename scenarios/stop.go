package scenarios

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// ErrInterrupted ends a run stopped by a signal (its context cancelled).
var ErrInterrupted = errors.New("interrupted")

// StopReason says why a run stopped in words for its user: "interrupted"
// instead of the context's cancellation when a signal stopped it, and a
// closed stdout as such instead of a bare EPIPE.
func StopReason(ctx context.Context, err error) error {
	if errors.Is(err, syscall.EPIPE) {
		err = fmt.Errorf("stdout was closed (%w): the run stopped and removed what it had created", err)
	}
	if ctx.Err() == nil {
		return err
	}
	if err == nil || errors.Is(err, context.Canceled) {
		return errors.Join(withoutCanceled(err), ErrInterrupted)
	}
	return errors.Join(err, ErrInterrupted)
}

// withoutCanceled drops the parts of err that are (or wrap) the context's
// cancellation: after a signal they say no more than "interrupted". The
// other parts of a joined error are kept.
func withoutCanceled(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var keep []error
		for _, e := range j.Unwrap() {
			if e = withoutCanceled(e); e != nil {
				keep = append(keep, e)
			}
		}
		return errors.Join(keep...)
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
