package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrBadLine wraps every error of Decode.
var ErrBadLine = errors.New("bad result line")

// legacyControlScenario is the control scenario's name, which marked a
// control on schema 1 and 2 lines, before lines said so themselves.
const legacyControlScenario = "control.latency"

// legacyMeasures are the params schema 1 and 2 lines carried
// measurements under, with their units and directions.
var legacyMeasures = map[string]Measure{
	"mib_s":         {Unit: UnitMiBPerSec, Better: Higher},
	"rows_s":        {Unit: UnitRowsPerSec, Better: Higher},
	"cpu_us_per_op": {Unit: UnitUSPerOp, Better: Lower},
	"parquet_bytes": {Unit: UnitBytes},
	"files":         {Unit: UnitCount},
	"max_rate":      {Unit: UnitOpsPerSec, Better: Higher},
	// The data plane's phase times and sizes (katbench data, schema 2).
	"write_s":               {Unit: UnitSeconds},
	"gen_s":                 {Unit: UnitSeconds},
	"commit_s":              {Unit: UnitSeconds},
	"plan_s":                {Unit: UnitSeconds},
	"verify_s":              {Unit: UnitSeconds},
	"append_p50_us":         {Unit: UnitMicros, Better: Lower},
	"append_max_us":         {Unit: UnitMicros, Better: Lower},
	"catalog_commit_p50_us": {Unit: UnitMicros, Better: Lower},
	"catalog_commit_p99_us": {Unit: UnitMicros, Better: Lower},
	"avg_file_bytes":        {Unit: UnitBytes},
	"peak_rss_mib":          {Unit: UnitMiB, Better: Lower},
	// checksum_ok was a boolean (every scan matched); it is now the share
	// of scans that matched, so true is 1 and false 0.
	"checksum_ok": {Unit: UnitRatio, Better: Higher},
}

// legacyOpenMeasures are open-loop facts lines carried in params before
// they were typed values, also on schema 3 lines.
var legacyOpenMeasures = map[string]Measure{
	"achieved_rate": {Unit: UnitOpsPerSec, Better: Higher},
}

// legacyRounds are the params lines carried a measurement's per-round
// values under, before they were the measurement's Rounds, by the
// measurement they belong to.
var legacyRounds = map[string]string{
	"rows_s_rounds":        "rows_s",
	"cpu_us_per_op_rounds": "cpu_us_per_op",
}

// Decode reads one result line, of any schema katbench has written, into
// the Record type its writer used, so reader and writer share one
// description of the line. Fields the Record does not define are ignored
// (a reader that carries them on keeps the raw JSON itself); a field of
// the wrong type, a bad ts or a line without run_id, target and scenario
// is an ErrBadLine.
//
// Lines older than SchemaVersion are upgraded to its contract; Schema
// keeps the version the line was written in (0 when it has none):
//   - Control is set on the control scenario's lines;
//   - numeric params of the names that carried measurements (mib_s,
//     rows_s, cpu_us_per_op, parquet_bytes, files, max_rate, the data
//     plane's phase times and sizes; a boolean checksum_ok is 1 or 0) become
//     Measures — also on a schema 3 line that carries no measures at all
//     (its writer had not moved them out of params yet);
//   - the per-round lists kept in params (rows_s_rounds,
//     cpu_us_per_op_rounds) become their measurement's Rounds, and an
//     open loop's achieved_rate a Measure, on any schema; both leave
//     params;
//   - dims (schema 4) are filled from where older writers kept the
//     level: an S3 line's params.concurrency (else threads), a GET's or
//     PUT's params.size_bytes and an open loop's params.rate (with the
//     percentage of params.rate_spec as rate_pct), a data append's
//     params.rows, every other line's threads; params keep them;
//   - a line without a loop is closed-loop;
//   - a command kept as one string of shell words becomes its words.
//
// A value Record leaves zero was not measured: writers omit unmeasured
// values, and schema 1 lines wrote their unmeasured percentiles as 0.
func Decode(b []byte) (Record, error) {
	type plain Record // without Record's methods
	var aux struct {
		plain
		Command json.RawMessage `json:"command"` // words, or one string on older lines
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return Record{}, fmt.Errorf("%w: %w", ErrBadLine, err)
	}
	r := Record(aux.plain)
	if err := decodeCommand(aux.Command, &r); err != nil {
		return Record{}, err
	}
	if r.RunID == "" || r.Target == "" || r.Scenario == "" {
		return Record{}, fmt.Errorf("%w: run_id, target and scenario are required", ErrBadLine)
	}
	if r.TS != "" {
		if _, err := time.Parse(time.RFC3339Nano, r.TS); err != nil {
			return Record{}, fmt.Errorf("%w: ts: %w", ErrBadLine, err)
		}
	}
	if r.Loop == "" {
		r.Loop = Closed
	}
	if r.Schema < 3 {
		r.Control = r.Control || r.Scenario == legacyControlScenario
	}
	var p struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return Record{}, fmt.Errorf("%w: params: %w", ErrBadLine, err)
	}
	if r.Schema < 4 && len(r.Dims) == 0 {
		upgradeDims(&r, p.Params)
	}
	if r.Skipped != "" {
		return r, nil
	}
	if r.Schema < 3 || len(r.Measures) == 0 {
		upgradeMeasures(&r, p.Params, legacyMeasures, false)
	}
	upgradeMeasures(&r, p.Params, legacyOpenMeasures, true)
	for param, name := range legacyRounds {
		raw, ok := p.Params[param]
		if !ok {
			continue
		}
		var rounds Samples
		m, have := r.Measures[name]
		if json.Unmarshal(raw, &rounds) != nil || !have {
			continue // not numbers, or no measurement to carry them: left as they are
		}
		if len(m.Rounds) == 0 {
			m.Rounds = rounds
			r.Measures[name] = m
		}
		delete(r.Params, param)
	}
	return r, nil
}

// upgradeMeasures makes the numeric params of legacy's names Measures
// the line lacks; move drops them from params.
func upgradeMeasures(r *Record, params map[string]json.RawMessage, legacy map[string]Measure, move bool) {
	for name, m := range legacy {
		var v float64
		raw, ok := params[name]
		if !ok {
			continue
		}
		if json.Unmarshal(raw, &v) != nil {
			var b bool
			if m.Unit != UnitRatio || json.Unmarshal(raw, &b) != nil {
				continue // not a number (nor a ratio's boolean): no measurement
			}
			if b {
				v = 1
			}
		}
		if _, ok := r.Measures[name]; !ok {
			r.SetMeasure(name, v, m.Unit, m.Better)
		}
		if move {
			delete(r.Params, name)
		}
	}
}

// decodeCommand reads a line's command: its words, or (on older lines) one
// string of shell words, split into them.
func decodeCommand(b json.RawMessage, r *Record) error {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &r.Command); err == nil {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%w: command: want an array of words or a string", ErrBadLine)
	}
	words, ok := splitWords(s)
	if !ok {
		words = []string{RedactText(s)} // not shell words: kept whole
	}
	r.Command = words
	return nil
}
