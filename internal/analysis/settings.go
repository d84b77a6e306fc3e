package analysis

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CompareSettings are compare's settings as a command line gives them
// (each field is the flag of its name).
type CompareSettings struct {
	Metric    string  // "auto" or "" for each line's own; else MetricByName
	Threshold float64 // percent; 0 for the metric's default
	Margin    string  // "" or a percentage like "5%"
	CrossHost bool
	Format    string // text or jsonl
}

// Options checks s and returns the comparison's options. Every error is
// a bad setting, named by its flag.
func (s CompareSettings) Options() (CompareOptions, error) {
	var o CompareOptions
	bad := fmt.Errorf
	if s.Metric != "auto" && s.Metric != "" {
		m, err := MetricByName(s.Metric)
		if err != nil {
			return o, bad("--metric: %v", err)
		}
		o.Metric = m
	}
	if s.Format != "text" && s.Format != "jsonl" {
		return o, bad("--format %q: want text or jsonl", s.Format)
	}
	if s.Threshold < 0 {
		return o, bad("--threshold %v: must be ≥ 0", s.Threshold)
	}
	o.Threshold = s.Threshold / 100
	if s.Margin != "" {
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s.Margin), "%")), 64)
		if err != nil || v <= 0 || v >= 100 {
			return o, bad("--margin %q: want a percentage between 0 and 100, like 5%%", s.Margin)
		}
		o.Margin = v / 100
	}
	o.CrossHost = s.CrossHost
	return o, nil
}

// Write writes c in format ("jsonl", else text).
func (c Comparison) Write(w io.Writer, format string) error {
	if format == "jsonl" {
		return WriteCompareJSONL(w, c)
	}
	return WriteCompareText(w, c)
}
