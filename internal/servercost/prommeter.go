package servercost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// PromMeter measures a server through its Prometheus metrics endpoint,
// scraped before and after each window and on a ticker inside it for the
// memory peak. It sees the server's own process only: the store's CPU,
// its bytes and the PIDs are absent. Not safe for concurrent use.
type PromMeter struct {
	URL    string
	Client *http.Client
	// Every is the scrape period inside a window; 0 means one second.
	Every time.Duration

	s0   promSample
	peak *peakSampler
}

var _ Meter = (*PromMeter)(nil)

// Begin scrapes the endpoint once and starts the memory sampler.
func (m *PromMeter) Begin(ctx context.Context) error {
	s, err := scrape(ctx, m.client(), m.URL)
	if err != nil {
		return fmt.Errorf("scrape %s: %w", m.URL, err)
	}
	if s.cpu == nil && s.rss == nil {
		return fmt.Errorf("scrape %s: none of %s, %s, %s on the page", m.URL, metricCPUSeconds, metricCPUNanos, metricRSS)
	}
	m.s0 = s
	every := m.Every
	if every <= 0 {
		every = time.Second
	}
	m.peak = startPeak(every, func() (int64, bool) {
		c, cancel := context.WithTimeout(context.Background(), every)
		defer cancel()
		s, err := scrape(c, m.client(), m.URL)
		if err != nil || s.rss == nil {
			return 0, false
		}
		return *s.rss, true
	})
	return nil
}

// End scrapes again and returns the difference.
func (m *PromMeter) End(ctx context.Context) (Window, error) {
	if m.peak == nil {
		return Window{}, errors.New("servercost: End without Begin")
	}
	peak := m.peak.end()
	m.peak = nil
	s, err := scrape(ctx, m.client(), m.URL)
	if err != nil {
		return Window{}, fmt.Errorf("scrape %s: %w", m.URL, err)
	}
	w := Window{Source: SourcePrometheus}
	if s.cpu != nil && m.s0.cpu != nil {
		d := *s.cpu - *m.s0.cpu
		w.CPU = &d
	} else {
		w.miss("cpu", "the metrics page has no process CPU time ("+metricCPUSeconds+" or "+metricCPUNanos+")")
	}
	if s.rss != nil {
		after := *s.rss
		peak = max(peak, after)
		w.RSSAfter, w.RSSPeak = &after, &peak
	} else {
		w.miss("rss", "the metrics page has no "+metricRSS+" (Micrometer publishes none)")
	}
	w.miss("store_cpu", "a metrics endpoint shows the server's own process, not its store's")
	w.miss("store_bytes", "a metrics endpoint does not show the store's files")
	return w, nil
}

func (m *PromMeter) client() *http.Client {
	if m.Client != nil {
		return m.Client
	}
	return &http.Client{Timeout: 10 * time.Second}
}
