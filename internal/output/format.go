package output

import (
	"errors"
	"fmt"
	"io"
)

// ErrFormat is wrapped by CheckFormat's error: a --format value that is
// none of the known ones; always the user's input.
var ErrFormat = errors.New("bad format")

// Formats are the values of a results command's --format, as its help
// names them (results.RegisterFormatFlag).
const Formats = "auto (a table on a terminal, JSONL otherwise), jsonl or table"

// CheckFormat is the one check of a results command's --format: "auto",
// "jsonl" or "table"; anything else is an error wrapping ErrFormat.
func CheckFormat(format string) error {
	switch format {
	case "auto", "jsonl", "table":
		return nil
	}
	return formatError(fmt.Sprintf("--format %q: want auto, jsonl or table", format))
}

// formatError is CheckFormat's error: it is ErrFormat, and says only
// what is wrong with the value.
type formatError string

func (e formatError) Error() string        { return string(e) }
func (e formatError) Is(target error) bool { return target == ErrFormat }

// ResolveFormat turns "auto" into "table" when stdout is a terminal (a
// person reads it) and "jsonl" otherwise (a pipe or file: a program reads
// it). Other values are returned as they are.
func ResolveFormat(format string, stdout io.Writer) string {
	if format != "auto" {
		return format
	}
	if IsTerminal(stdout) {
		return "table"
	}
	return "jsonl"
}
