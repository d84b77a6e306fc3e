package results

import (
	"fmt"
	"regexp"
)

// labelPattern is what a run label may look like: the name a README table
// marker uses (`<!-- katbench:table NAME -->`), so no quoting is needed.
var labelPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// CheckLabel reports whether s can be a run's label (Record.Label).
func CheckLabel(s string) error {
	if !labelPattern.MatchString(s) {
		return fmt.Errorf("%q: a label is 1–64 of a-z 0-9 . _ -, starting with a letter or digit", s)
	}
	return nil
}

// Labelled returns sink with label set on every record it passes on; sink
// itself when label is "". It is as safe for concurrent use as sink.
func Labelled(sink Sink, label string) Sink {
	if label == "" {
		return sink
	}
	return SinkFunc(func(r Record) error {
		r.Label = label
		return sink.Write(r)
	})
}

// CommandLine is a run's command (Run.Command) from the program's name and
// its arguments: secret values redacted (RedactArgs) and each argument
// quoted for a POSIX shell where it needs it, so the command can be pasted
// back into a terminal once the secrets are supplied again. nil when args
// is nil (a run not started by a command).
func CommandLine(program string, args []string) []string {
	if args == nil {
		return nil
	}
	out := []string{program}
	for _, a := range RedactArgs(args) {
		out = append(out, ShellQuote(a))
	}
	return out
}
