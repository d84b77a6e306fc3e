package main

import "strings"

// invocation is the command line katbench was started with, set by main
// (nil when the commands run inside a test). Every run stamps it on its
// lines, so a result in a history file names the command that produced it.
var invocation []string

// commandLine returns the invocation as "katbench ARG…", each argument
// quoted for a POSIX shell where it needs it, so a line's command can be
// pasted back into a terminal. nil when there is no invocation.
func commandLine() []string {
	if invocation == nil {
		return nil
	}
	out := []string{"katbench"}
	for _, a := range invocation {
		out = append(out, shellQuote(a))
	}
	return out
}

// shellQuote returns s as one POSIX shell word: unchanged when it holds
// only characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
