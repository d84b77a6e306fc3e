package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// Line is one decoded result line: the results.Record its writer wrote,
// decoded (and upgraded from schema 1 and 2) by results.Decode, with the
// views a reader needs beside it. A value the line does not carry is nil
// in those views, never 0, so an unmeasured number cannot be mistaken for
// a measurement.
type Line struct {
	results.Record

	// TS is Record.TS parsed; zero when the line has none.
	TS time.Time
	// Command is Record.Command (redacted) as one string; "" when none.
	Command string
	// The merged numbers; nil where the Record has none (its zero: a
	// writer omits what it did not measure), and all nil on a skipped line
	// or one where no operation succeeded.
	OpsSec, P50US, P99US, P999US, MaxUS, MeanUS *float64
	// Rate is the requested arrival rate of an open loop: its dims' rate
	// where the rate is a level of its scenario (an S3 cell's), else
	// params.rate (a catalog run's one --rate, a setting of the run).
	Rate *float64
	// Rounds holds per-round values (Record.RoundP50US, RoundOpsSec) when
	// the line carries them; nil for lines with one merged value.
	Rounds []Round

	// Source and LineNo say where the line was read from.
	Source string
	LineNo int

	raw map[string]json.RawMessage
}

// Round is one round's values of a line measured in several rounds; nil
// for a round that measured nothing.
type Round struct {
	P50US  *float64
	OpsSec *float64
}

// ErrBadLine is wrapped by every decoding error of a result line.
var ErrBadLine = results.ErrBadLine

// ParseLine decodes one JSONL line. Unknown fields are kept (see Raw) so a
// merged line can carry them on. Its command, params, skip reason and
// first error are redacted as results redacts the lines it writes, so a
// line written before redaction existed shows no secret to any reader.
func ParseLine(b []byte) (Line, error) { return parseLine(b, nil) }

// parseLine is ParseLine with a memo of redacted commands (nil for none),
// which Read shares across a file's lines: a run's lines repeat one.
func parseLine(b []byte, memo commandMemo) (Line, error) {
	rec, err := results.Decode(b)
	if err != nil {
		return Line{}, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Line{}, fmt.Errorf("%w: %w", ErrBadLine, err)
	}
	l := Line{Record: rec, raw: raw}
	if l.Params == nil {
		l.Params = map[string]any{}
	}
	if rec.TS != "" {
		l.TS, _ = time.Parse(time.RFC3339Nano, rec.TS) // Decode checked it
	}
	if v, ok := l.Dims[results.DimRate]; ok {
		l.Rate = &v
	} else if l.Loop == results.Open {
		var p struct {
			Rate *float64 `json:"rate"`
		}
		if l.paramsAs(&p) == nil {
			l.Rate = p.Rate
		}
	}
	redactLine(&l, memo)
	if l.Skipped != "" {
		return l, nil // a skipped line carries no numbers, whatever it says
	}
	l.OpsSec = present(rec.OpsSec)
	if l.Ops > 0 { // nothing succeeded: no percentile was measured
		l.P50US, l.P99US, l.P999US = present(rec.P50US), present(rec.P99US), present(rec.P999US)
		l.MaxUS, l.MeanUS = present(rec.MaxUS), present(rec.MeanUS)
	}
	if n := max(len(rec.RoundP50US), len(rec.RoundOpsSec)); n > 0 {
		l.Rounds = make([]Round, n)
		for i := range l.Rounds {
			l.Rounds[i] = Round{P50US: sample(rec.RoundP50US, i), OpsSec: sample(rec.RoundOpsSec, i)}
		}
	}
	return l, nil
}

// present is v's address, or nil for 0: a value the writer left out.
func present(v float64) *float64 {
	if v == 0 {
		return nil
	}
	return &v
}

// sample is round i of s, nil when s has no such round or it measured
// nothing.
func sample(s results.Samples, i int) *float64 {
	if i >= len(s) || math.IsNaN(s[i]) {
		return nil
	}
	v := s[i]
	return &v
}

// paramsAs decodes the line's params into v, a pointer to a struct naming
// the params a reader needs with their types, so no reader asserts a type
// out of the untyped Params.
func (l Line) paramsAs(v any) error {
	b, ok := l.raw["params"]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: params: %w", l.Where(), err)
	}
	return nil
}

// Measure returns the named measurement of the line and whether it has
// one (lines older than measures have theirs upgraded by results.Decode).
// A skipped line has none.
func (l Line) Measure(name string) (results.Measure, bool) {
	if l.Skipped != "" {
		return results.Measure{}, false
	}
	m, ok := l.Measures[name]
	return m, ok
}

// Measured reports whether the line carries numbers (not skipped, at least
// one successful operation).
func (l Line) Measured() bool { return l.Skipped == "" && l.Ops > 0 }

// Raw returns the line's fields as read, including ones this package does
// not know. The map is shared with the line: do not modify it.
func (l Line) Raw() map[string]json.RawMessage { return l.raw }

// Where names the line for error messages: file:line run target scenario.
func (l Line) Where() string {
	return fmt.Sprintf("%s:%d (%s %s %s)", l.Source, l.LineNo, l.RunID, l.Target, l.Scenario)
}

// commandString is a command's words as one string.
func commandString(words []string) string { return strings.Join(words, " ") }
