package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nordisk/katbench/scenarios"
)

// startBarrier holds the workers back until all are ready: a worker is
// ready once its log holds scenarios.ReadyMark (its setup is done and it
// waits at its --start-file); then every worker gets the one start instant.
type startBarrier struct {
	n     int
	ready map[string]bool
	at    time.Time // the instant handed out; zero until then
}

func newStartBarrier(n int) *startBarrier {
	return &startBarrier{n: n, ready: map[string]bool{}}
}

// see records a worker's log so far.
func (b *startBarrier) see(pod string, logs []byte) {
	if bytes.Contains(logs, []byte(scenarios.ReadyMark)) {
		b.ready[pod] = true
	}
}

// poll reads the logs of the running workers not yet ready. A worker that
// ended before the barrier released it is an error.
func (b *startBarrier) poll(ctx context.Context, o Options, pods []podView) error {
	for _, p := range pods {
		name := p.Metadata.Name
		if p.Status.Phase == "Succeeded" {
			return fmt.Errorf("worker pod %s exited before the start instant was handed out", name)
		}
		if p.Status.Phase != "Running" || b.ready[name] {
			continue
		}
		if logs, err := o.kubectl(ctx, nil, "logs", name); err == nil {
			b.see(name, logs)
		}
	}
	return nil
}

// waiting names the workers not ready yet (and the pods still to come).
func (b *startBarrier) waiting(pods []podView) []string {
	var w []string
	for _, p := range pods {
		if !b.ready[p.Metadata.Name] {
			w = append(w, fmt.Sprintf("%s (%s)", p.Metadata.Name, p.Status.Phase))
		}
	}
	if len(pods) < b.n {
		w = append(w, fmt.Sprintf("%d pods not created yet", b.n-len(pods)))
	}
	return w
}

// release hands every worker the start instant at, in parallel, and
// returns when the last got it. It refuses while any worker is not ready.
func (b *startBarrier) release(ctx context.Context, pods []podView, at time.Time, signal func(ctx context.Context, pod string, at time.Time) error) (time.Time, error) {
	if w := b.waiting(pods); len(w) > 0 {
		return time.Time{}, fmt.Errorf("start barrier: not ready: %s", strings.Join(w, ", "))
	}
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, p := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := signal(ctx, p.Metadata.Name, at); err != nil {
				errs[i] = fmt.Errorf("handing the start instant to worker pod %s: %w", p.Metadata.Name, err)
			}
		}()
	}
	wg.Wait()
	b.at = at
	return time.Now(), errors.Join(errs...)
}
