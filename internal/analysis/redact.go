package analysis

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// commandMemo maps a command's words as read, joined by NUL, to its
// redacted words. Not safe for concurrent use.
type commandMemo map[string][]string

// redactLine redacts a decoded line the way results redacts a line it
// writes (results.RedactArgs, RedactParams, RedactText), so a secret in a
// line written before redaction existed reaches no report, table or
// merged line. The raw fields a merge carries on are redacted too, and
// Command is set from the redacted words. memo may be nil.
func redactLine(l *Line, memo commandMemo) {
	if mayHoldSecret(l.Params) {
		l.Params = results.RedactParams(l.Params)
		l.setRaw("params", l.Params)
	}
	if words := l.Record.Command; len(words) > 0 {
		key := strings.Join(words, "\x00")
		red, ok := memo[key]
		if !ok {
			red = results.RedactArgs(words)
			if memo != nil {
				memo[key] = red
			}
		}
		if !slices.Equal(red, words) {
			l.Record.Command = red
			l.setRaw("command", red)
		}
		if derived := commandString(red); l.Command == "" || l.Command == commandString(words) || l.Command == derived {
			l.Command = derived
		} else {
			// A command set in code, not read (redactLines): redacted as given.
			l.Command = results.RedactCommand(l.Command)
		}
	} else if l.Command != "" {
		l.Command = results.RedactCommand(l.Command)
	}
	if r := results.RedactText(l.Skipped); r != l.Skipped {
		l.Skipped = r
		l.setRaw("skipped", r)
	}
	if r := results.RedactText(l.FirstError); r != l.FirstError {
		l.FirstError = r
		l.setRaw("first_error", r)
	}
}

// setRaw replaces one raw field with v's JSON, copying the map first so a
// caller's view of it never changes underneath.
func (l *Line) setRaw(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		delete(l.raw, k)
		return
	}
	l.raw = maps.Clone(l.raw)
	if l.raw == nil {
		l.raw = map[string]json.RawMessage{}
	}
	l.raw[k] = b
}

// mayHoldSecret reports whether results.RedactParams could change
// params, erring towards true: a key that names a secret, a string that
// RedactText changes, or a value of a type JSON does not decode to. Most
// lines hold none, and then are not copied.
func mayHoldSecret(params map[string]any) bool {
	for k, v := range params {
		if results.SecretName(k) || valueMayHoldSecret(v) {
			return true
		}
	}
	return false
}

func valueMayHoldSecret(v any) bool {
	switch v := v.(type) {
	case string:
		return results.RedactText(v) != v
	case float64, bool, nil:
		return false
	case map[string]any:
		return mayHoldSecret(v)
	case []any:
		for _, e := range v {
			if valueMayHoldSecret(e) {
				return true
			}
		}
		return false
	}
	return true
}

// redactLines returns lines redacted as ParseLine redacts them, for views
// (the HTML report) that may be handed lines not read by ParseLine.
func redactLines(lines []Line) []Line {
	out := make([]Line, len(lines))
	for i, l := range lines {
		redactLine(&l, nil)
		out[i] = l
	}
	return out
}
