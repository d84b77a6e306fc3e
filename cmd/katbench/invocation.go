package main

import "github.com/nordisk/katbench/internal/results"

// invocation is the command line katbench was started with, set by main
// (nil when the commands run inside a test). Every run stamps it on its
// lines, so a result in a history file names the command that produced it.
var invocation []string

// commandLine is the invocation as a line's command (results.CommandLine).
func commandLine() []string { return results.CommandLine("katbench", invocation) }
