package main

import "github.com/nordisk/katbench/internal/results"

// invocation is the command line katbench was started with, set by main
// (nil when the commands run inside a test). Every run stamps it on its
// lines, so a result in a history file names the command that produced it.
var invocation []string

// commandLine returns the invocation as "katbench ARG…", secret values
// redacted (results.RedactArgs) and each argument quoted for a POSIX shell
// where it needs it, so a line's command can be pasted back into a
// terminal once the secrets are supplied again. nil when there is no
// invocation.
func commandLine() []string {
	if invocation == nil {
		return nil
	}
	out := []string{"katbench"}
	for _, a := range results.RedactArgs(invocation) {
		out = append(out, shellQuote(a))
	}
	return out
}

// shellQuote returns s as one POSIX shell word (results.ShellQuote).
func shellQuote(s string) string { return results.ShellQuote(s) }
