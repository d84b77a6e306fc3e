package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// Line is one decoded result line. It reads every schema katbench has
// written: the first history (no schema field, one merged value per line)
// and later lines with per-round samples (round_p50_us, round_ops_sec, or
// an array of round objects), a headline metric, warm-up errors and
// open-loop fields. A value that the line does not carry is nil, never
// 0, so an unmeasured number cannot be mistaken for a measurement.
type Line struct {
	TS           time.Time
	RunID        string
	Label        string // the run's --label; "" on unlabelled and older lines
	Target       string
	Scenario     string
	Loop         string // "closed" when the line predates the field
	Threads      int
	Ops          int64
	Errors       int64
	DurationS    float64
	OpsSec       *float64
	P50US        *float64
	P99US        *float64
	P999US       *float64
	MaxUS        *float64
	MeanUS       *float64
	ControlP50US *float64
	Rate         *float64 // requested arrival rate of an open loop, ops/s
	Params       map[string]any
	// Measures are the line's typed secondary measurements; on lines
	// written before they existed, numeric params of the known names are
	// read as measurements (see Measure).
	Measures map[string]results.Measure
	// Control says the line measures a floor; lines written before the
	// field existed are controls when their scenario is the control one.
	Control bool
	Host    results.Host
	Commit  results.Commit
	Hist    string
	Skipped string
	Command string // the command that produced the line, when recorded
	Schema  int    // 0 for lines written before the field existed
	// Headline is the line's own headline metric ("p50_us", "ops_sec")
	// and Kind its scenario kind, when the line says; "" on older lines.
	Headline string
	Kind     string
	// Rounds holds per-round values when the line carries them; nil for
	// lines with one merged value.
	Rounds []Round

	// Source and LineNo say where the line was read from.
	Source string
	LineNo int

	raw map[string]json.RawMessage
}

// Round is one round's values of a line measured in several rounds.
type Round struct {
	P50US  *float64 `json:"p50_us"`
	P99US  *float64 `json:"p99_us"`
	OpsSec *float64 `json:"ops_sec"`
}

// ErrBadLine is wrapped by every decoding error of a result line.
var ErrBadLine = errors.New("bad result line")

// wire is the JSON shape read from a line; pointers tell absent from 0.
type wire struct {
	TS           string                     `json:"ts"`
	RunID        string                     `json:"run_id"`
	Label        string                     `json:"label"`
	Target       string                     `json:"target"`
	Scenario     string                     `json:"scenario"`
	Loop         string                     `json:"loop"`
	Threads      int                        `json:"threads"`
	Ops          int64                      `json:"ops"`
	Errors       int64                      `json:"errors"`
	DurationS    float64                    `json:"duration_s"`
	OpsSec       *float64                   `json:"ops_sec"`
	P50US        *float64                   `json:"p50_us"`
	P99US        *float64                   `json:"p99_us"`
	P999US       *float64                   `json:"p999_us"`
	MaxUS        *float64                   `json:"max_us"`
	MeanUS       *float64                   `json:"mean_us"`
	ControlP50US *float64                   `json:"control_p50_us"`
	Rate         *float64                   `json:"rate"`
	Params       map[string]any             `json:"params"`
	Measures     map[string]results.Measure `json:"measures"`
	Control      bool                       `json:"control"`
	Host         results.Host               `json:"host"`
	Commit       results.Commit             `json:"commit"`
	Hist         string                     `json:"hist"`
	Skipped      string                     `json:"skipped"`
	Command      any                        `json:"command"`
	Schema       any                        `json:"schema"`
	// The per-round arrays the runner writes (null for a round that
	// measured nothing) and the line's headline metric.
	RoundP50US  []*float64 `json:"round_p50_us"`
	RoundOpsSec []*float64 `json:"round_ops_sec"`
	RoundP99US  []*float64 `json:"round_p99_us"`
	Metric      string     `json:"metric"`
	Kind        string     `json:"kind"`
}

// roundFields are the names a line may carry its per-round samples under,
// first match wins.
var roundFields = []string{"rounds", "round_samples", "per_round", "samples"}

// ParseLine decodes one JSONL line. Unknown fields are kept (see Raw) so a
// merged line can carry them on. Its command, params, skip reason and
// first error are redacted as results redacts the lines it writes, so a
// line written before redaction existed shows no secret to any reader.
func ParseLine(b []byte) (Line, error) { return parseLine(b, nil) }

// parseLine is ParseLine with a memo of redacted commands (nil for none),
// which Read shares across a file's lines: a run's lines repeat one.
func parseLine(b []byte, memo commandMemo) (Line, error) {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return Line{}, fmt.Errorf("%w: %w", ErrBadLine, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Line{}, fmt.Errorf("%w: %w", ErrBadLine, err)
	}
	if w.RunID == "" || w.Target == "" || w.Scenario == "" {
		return Line{}, fmt.Errorf("%w: run_id, target and scenario are required", ErrBadLine)
	}
	l := Line{
		RunID: w.RunID, Label: w.Label, Target: w.Target, Scenario: w.Scenario, Loop: w.Loop,
		Threads: w.Threads, Ops: w.Ops, Errors: w.Errors, DurationS: w.DurationS,
		OpsSec: w.OpsSec, P50US: w.P50US, P99US: w.P99US, P999US: w.P999US,
		MaxUS: w.MaxUS, MeanUS: w.MeanUS, ControlP50US: w.ControlP50US, Rate: w.Rate,
		Params: w.Params, Host: w.Host, Commit: w.Commit, Hist: w.Hist, Skipped: w.Skipped,
		Headline: w.Metric, Kind: w.Kind, raw: raw,
		Measures: w.Measures, Control: w.Control || legacySchema(w.Schema) && w.Scenario == controlScenario,
	}
	if l.Params == nil {
		l.Params = map[string]any{}
	}
	if l.Loop == "" {
		l.Loop = results.Closed
	}
	if r, ok := l.Params["rate"].(float64); ok && l.Rate == nil && l.Loop == results.Open {
		l.Rate = &r // the runner puts an open loop's requested rate in params
	}
	if w.TS != "" {
		ts, err := time.Parse(time.RFC3339Nano, w.TS)
		if err != nil {
			return Line{}, fmt.Errorf("%w: ts: %w", ErrBadLine, err)
		}
		l.TS = ts
	}
	switch c := w.Command.(type) {
	case string:
		l.Command = c
	case []any:
		l.Command = joinArgs(c)
	}
	redactLine(&l, w.Command, memo)
	if f, ok := w.Schema.(float64); ok {
		l.Schema = int(f)
	}
	if l.Skipped != "" {
		// A skipped line carries no numbers, whatever it says.
		l.OpsSec, l.P50US, l.P99US, l.P999US, l.MaxUS, l.MeanUS = nil, nil, nil, nil, nil, nil
		return l, nil
	}
	if l.Ops == 0 {
		// Nothing succeeded: no percentile was measured (old lines wrote 0).
		l.P50US, l.P99US, l.P999US, l.MaxUS, l.MeanUS = nil, nil, nil, nil, nil
	}
	if n := max(len(w.RoundP50US), len(w.RoundOpsSec), len(w.RoundP99US)); n > 0 {
		l.Rounds = make([]Round, n)
		for i := range l.Rounds {
			l.Rounds[i] = Round{P50US: at(w.RoundP50US, i), OpsSec: at(w.RoundOpsSec, i), P99US: at(w.RoundP99US, i)}
		}
		return l, nil
	}
	for _, f := range roundFields {
		if rs, ok := decodeRounds(raw[f]); ok {
			l.Rounds = rs
			break
		}
	}
	return l, nil
}

func at(v []*float64, i int) *float64 {
	if i < len(v) {
		return v[i]
	}
	return nil
}

// decodeRounds reads an array of per-round objects; a number (a round
// count) or anything else is not a sample list.
func decodeRounds(b json.RawMessage) ([]Round, bool) {
	if len(b) == 0 || b[0] != '[' {
		return nil, false
	}
	var rs []Round
	if err := json.Unmarshal(b, &rs); err != nil || len(rs) == 0 {
		return nil, false
	}
	return rs, true
}

func joinArgs(a []any) string {
	s := ""
	for i, v := range a {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprint(v)
	}
	return s
}

// controlScenario is the control scenario's name, which marked a control
// on lines written before lines said so themselves.
const controlScenario = "control.latency"

// legacySchema reports whether a line's schema predates lines saying
// themselves what is a control and what is a measurement (1 or 2).
func legacySchema(schema any) bool {
	f, ok := schema.(float64)
	return !ok || f < 3
}

// legacyMeasures are the params older lines carried measurements under,
// with their units and directions.
var legacyMeasures = map[string]results.Measure{
	"mib_s":         {Unit: results.UnitMiBPerSec, Better: results.Higher},
	"rows_s":        {Unit: results.UnitRowsPerSec, Better: results.Higher},
	"cpu_us_per_op": {Unit: results.UnitUSPerOp, Better: results.Lower},
	"parquet_bytes": {Unit: results.UnitBytes},
	"files":         {Unit: results.UnitCount},
	"max_rate":      {Unit: results.UnitOpsPerSec, Better: results.Higher},
}

// Measure returns the named measurement of the line and whether it has
// one: from its measures, or, on a line written before measures existed,
// from a numeric param of a known name. A skipped line has none.
func (l Line) Measure(name string) (results.Measure, bool) {
	if l.Skipped != "" {
		return results.Measure{}, false
	}
	if m, ok := l.Measures[name]; ok {
		return m, true
	}
	m, known := legacyMeasures[name]
	if !known || l.Schema >= 3 {
		return results.Measure{}, false
	}
	v, ok := l.Params[name].(float64) // JSON numbers decode as float64
	if !ok {
		return results.Measure{}, false
	}
	m.Value = v
	return m, true
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
