package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestOutputFlagsDefinedOnce: every command's --history, --format and
// --label come from the one helper of each (package results), so their
// help differs from command to command only in the part the command
// passes: the text before it is the same everywhere.
func TestOutputFlagsDefinedOnce(t *testing.T) {
	prefix := map[string]string{
		"history": "history file of result lines (JSONL): ",
		"format":  "stdout format: ",
		"label":   "record this label on every line: ",
	}
	seen := map[string]int{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, want := range prefix {
			if f := c.Flags().Lookup(name); f != nil {
				seen[name]++
				if !strings.HasPrefix(f.Usage, want) {
					t.Errorf("%s --%s: help %q, want it to start %q (the shared helper)", c.CommandPath(), name, f.Usage, want)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(rootCmd)
	// run, capacity, data, transport, verify, every competitor; compare,
	// readme, cluster run; ab (--format).
	for name, atLeast := range map[string]int{"history": 8, "format": 7, "label": 6} {
		if seen[name] < atLeast {
			t.Errorf("--%s found on %d commands, want at least %d: the walk missed them", name, seen[name], atLeast)
		}
	}
}
