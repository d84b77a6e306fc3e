package main

import (
	"fmt"
	"regexp"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/results"
)

// labelPattern is what a run label may look like: the name a README table
// marker uses (`<!-- katbench:table NAME -->`), so no quoting is needed.
var labelPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// labelValue is the --label flag: checked when the flag is parsed, so a bad
// label is a usage error before anything runs.
type labelValue string

func (v *labelValue) String() string { return string(*v) }
func (v *labelValue) Type() string   { return "NAME" }
func (v *labelValue) Set(s string) error {
	if !labelPattern.MatchString(s) {
		return fmt.Errorf("%q: a label is 1–64 of a-z 0-9 . _ -, starting with a letter or digit", s)
	}
	*v = labelValue(s)
	return nil
}

// registerLabel adds --label to a command that writes result lines.
func registerLabel(fl *pflag.FlagSet, p *string) {
	fl.Var((*labelValue)(p), "label", "record this label on every line: a README table named NAME (katbench readme) shows the newest run labelled NAME")
}

// labelled returns sink with label set on every record it passes on; sink
// itself when label is "". It is as safe for concurrent use as sink.
func labelled(sink results.Sink, label string) results.Sink {
	if label == "" {
		return sink
	}
	return results.SinkFunc(func(r results.Record) error {
		r.Label = label
		return sink.Write(r)
	})
}
