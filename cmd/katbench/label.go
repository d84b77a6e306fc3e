package main

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/results"
)

// labelValue is the --label flag: checked when the flag is parsed
// (results.CheckLabel), so a bad label is a usage error before anything
// runs.
type labelValue string

func (v *labelValue) String() string { return string(*v) }
func (v *labelValue) Type() string   { return "NAME" }
func (v *labelValue) Set(s string) error {
	if err := results.CheckLabel(s); err != nil {
		return err
	}
	*v = labelValue(s)
	return nil
}

// registerLabel adds --label to a command that writes result lines.
func registerLabel(fl *pflag.FlagSet, p *string) {
	fl.Var((*labelValue)(p), "label", "record this label on every line: a README table named NAME (katbench readme) shows the newest run labelled NAME")
}
