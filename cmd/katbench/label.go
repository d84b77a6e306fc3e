package main

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/results"
)

// registerLabel adds --label (results.RegisterLabelFlag).
func registerLabel(fl *pflag.FlagSet, p *string) { results.RegisterLabelFlag(fl, p) }
