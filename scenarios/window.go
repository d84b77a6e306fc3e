package scenarios

import "context"

// WindowObserver is told when a measuring loop's measured phase begins
// and ends (warm-ups excluded), so what happens outside the benchmark's
// process — the server's CPU, the bytes on the wire — is counted over the
// same window as the operations. Begin and End are called in pairs from
// the goroutine running the loop.
type WindowObserver interface {
	Begin(ctx context.Context)
	End(ctx context.Context)
}

type windowKey struct{}

// withWindow returns ctx carrying w for the measuring loops run under it.
func withWindow(ctx context.Context, w WindowObserver) context.Context {
	return context.WithValue(ctx, windowKey{}, w)
}

// beginWindow tells ctx's observer, if any, that a measured phase begins,
// and returns the function that tells it the phase ended.
func beginWindow(ctx context.Context) (end func()) {
	w, ok := ctx.Value(windowKey{}).(WindowObserver)
	if !ok {
		return func() {}
	}
	w.Begin(ctx)
	return func() { w.End(ctx) }
}
