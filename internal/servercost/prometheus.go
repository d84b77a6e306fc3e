package servercost

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// scrapeLimit bounds a metrics page read; a JVM server's is a few hundred
// KiB.
const scrapeLimit = 16 << 20

// promSample is what one scrape of a metrics endpoint says about the
// process behind it; a field is absent when the page has no metric for it.
type promSample struct {
	cpu *time.Duration // process CPU time so far
	rss *int64         // resident bytes now
}

// The metric names read. process_* are the Prometheus client libraries'
// process collector (Go, Python, the Java simpleclient); Micrometer
// (Quarkus: Nessie, Polaris) publishes process_cpu_time_ns_total since
// 1.13 and no resident size.
const (
	metricCPUSeconds = "process_cpu_seconds_total"
	metricCPUNanos   = "process_cpu_time_ns_total"
	metricRSS        = "process_resident_memory_bytes"
)

// scrape fetches and parses a Prometheus text page.
func scrape(ctx context.Context, client *http.Client, url string) (promSample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return promSample{}, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return promSample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return promSample{}, fmt.Errorf("GET metrics: %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, scrapeLimit))
	if err != nil {
		return promSample{}, fmt.Errorf("read metrics: %w", err)
	}
	return parseProm(b)
}

// parseProm reads the process metrics from a text exposition page,
// summing each over its label sets (a server's several processes).
func parseProm(b []byte) (promSample, error) {
	sums := map[string]float64{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		name, value, ok := promLine(line)
		if !ok {
			continue
		}
		switch name {
		case metricCPUSeconds, metricCPUNanos, metricRSS:
			sums[name] += value
			seen[name] = true
		}
	}
	if err := sc.Err(); err != nil {
		return promSample{}, fmt.Errorf("read metrics: %w", err)
	}
	var s promSample
	switch {
	case seen[metricCPUSeconds]:
		d := time.Duration(sums[metricCPUSeconds] * float64(time.Second))
		s.cpu = &d
	case seen[metricCPUNanos]:
		d := time.Duration(sums[metricCPUNanos])
		s.cpu = &d
	}
	if seen[metricRSS] {
		r := int64(sums[metricRSS])
		s.rss = &r
	}
	return s, nil
}

// promLine splits `name{labels} value [timestamp]`; label values may hold
// spaces and escaped quotes.
func promLine(line string) (string, float64, bool) {
	end := strings.IndexAny(line, "{ \t")
	if end <= 0 {
		return "", 0, false
	}
	name, rest := line[:end], line[end:]
	if rest[0] == '{' {
		i := labelsEnd(rest)
		if i < 0 {
			return "", 0, false
		}
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 1 {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return "", 0, false
	}
	return name, v, true
}

// labelsEnd returns the index of the '}' closing the label set s opens,
// -1 when it is not closed.
func labelsEnd(s string) int {
	inQuote := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && inQuote:
			i++
		case c == '"':
			inQuote = !inQuote
		case c == '}' && !inQuote:
			return i
		}
	}
	return -1
}
