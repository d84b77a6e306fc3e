package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Sink receives result lines as they are produced.
type Sink interface {
	Write(Record) error
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Record) error

func (f SinkFunc) Write(r Record) error { return f(r) }

// Tee writes every record to each sink in order and stops at the first error.
type Tee []Sink

func (t Tee) Write(r Record) error {
	for _, s := range t {
		if err := s.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// JSONL writes one JSON object per line. It is safe for concurrent use.
type JSONL struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONL returns a sink writing to w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

func (j *JSONL) Write(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result %s/%s: %w", r.Target, r.Scenario, err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err = j.w.Write(b)
	return err
}

// History appends lines to a history file, one write per line so a crash
// never leaves half a line behind another line's start.
type History struct {
	*JSONL
	f *os.File
}

// OpenHistory opens (creating if needed) path for appending.
func OpenHistory(path string) (*History, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", path, err)
	}
	return &History{JSONL: NewJSONL(f), f: f}, nil
}

// Close syncs and closes the file.
func (h *History) Close() error {
	if err := h.f.Sync(); err != nil {
		h.f.Close()
		return fmt.Errorf("sync history: %w", err)
	}
	return h.f.Close()
}

// Collector keeps every record in memory for the table printed at the end,
// redacted as a written line is (so a field set after the line was made
// reaches no table either). It is safe for concurrent use.
type Collector struct {
	mu      sync.Mutex
	Records []Record
}

func (c *Collector) Write(r Record) error {
	r = redact(r)
	c.mu.Lock()
	c.Records = append(c.Records, r)
	c.mu.Unlock()
	return nil
}

// Snapshot returns a copy of the records so far.
func (c *Collector) Snapshot() []Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Record(nil), c.Records...)
}
