package results

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// SchemaVersion is the `schema` of the lines this package writes. Lines
// without the field are version 1 (before kind/metric/rounds/clock
// overhead, with unmeasured percentiles written as 0); version 2 lines
// carry secondary measurements in params and mark no control (Decode
// upgrades both); version 3 adds `measures` and `control`; version 4
// adds `dims` (Decode fills them on older lines from the fields and params
// their writers kept the level in).
const SchemaVersion = 4

// Record is one result line: one (target, scenario, variant) of one run. Its
// JSON form is the contract documented in docs/methodology.md. A value that was not
// measured is absent, never 0: the percentiles and mean when no operation
// succeeded, ops_sec when nothing was timed; a skipped line carries no
// numbers at all.
type Record struct {
	Schema int    `json:"schema"`
	TS     string `json:"ts"`
	RunID  string `json:"run_id"`
	// Label names the run for the tables that are generated from it
	// (`--label`, read by `katbench readme`); absent when none was given.
	Label    string `json:"label,omitempty"`
	Target   string `json:"target"`
	Scenario string `json:"scenario"`
	Loop     string `json:"loop"`
	// Kind, Metric and Better say what the scenario measures and which
	// direction of its headline metric is better, so no reader parses the
	// scenario name. Absent on lines written before they existed.
	Kind    string `json:"kind,omitempty"`
	Metric  Metric `json:"metric,omitempty"`
	Better  Better `json:"better,omitempty"`
	Threads int    `json:"threads"`
	// Dims are the line's level: the value of each dimension its
	// scenario varies along (see Dims); absent on a scenario without
	// any. Threads stays the worker count.
	Dims         Dims     `json:"dims,omitempty"`
	Ops          int64    `json:"ops"`
	Errors       int64    `json:"errors"`
	DurationS    float64  `json:"duration_s"`
	OpsSec       float64  `json:"ops_sec,omitempty"`
	P50US        float64  `json:"p50_us,omitempty"`
	P99US        float64  `json:"p99_us,omitempty"`
	P999US       float64  `json:"p999_us,omitempty"`
	MaxUS        float64  `json:"max_us,omitempty"`
	MeanUS       float64  `json:"mean_us,omitempty"`
	ControlP50US *float64 `json:"control_p50_us,omitempty"`
	// Rounds is how many interleaved rounds the line's histogram merges;
	// RoundP50US and RoundOpsSec are each round's own p50 and ops/s, so
	// ratios can carry their spread.
	Rounds      int     `json:"rounds,omitempty"`
	RoundP50US  Samples `json:"round_p50_us,omitempty"`
	RoundOpsSec Samples `json:"round_ops_sec,omitempty"`
	// Counters are the deterministic per-operation counters of the
	// measured phase (allocations, system calls, instructions); absent
	// when none could be read.
	Counters *Counters `json:"counters,omitempty"`
	// WarmupErrors counts failed operations of the unrecorded warm-up
	// (present where a warm-up ran): they are not in Errors, but never
	// vanish.
	WarmupErrors *int64 `json:"warmup_errors,omitempty"`
	// ClockOverheadNS is the harness floor calibrated at the start of the
	// run: the median of back-to-back clock reads recorded through a
	// Recorder, in ns. Every latency on the line includes it.
	ClockOverheadNS float64 `json:"clock_overhead_ns,omitempty"`
	// AllowErrors records that the run was told (--allow-errors) to exit 0
	// although lines had failed operations.
	AllowErrors       bool           `json:"allow_errors,omitempty"`
	Transport         string         `json:"transport,omitempty"`
	TransportFallback string         `json:"transport_fallback,omitempty"`
	Params            map[string]any `json:"params"`
	// Measures are the line's typed secondary measurements (see Measure);
	// absent when it has none.
	Measures map[string]Measure `json:"measures,omitempty"`
	// Control marks a line that measures a floor (the competitor's or the
	// storage's own path with nothing of the system under test), so no
	// reader decides it from the scenario's name.
	Control bool   `json:"control,omitempty"`
	Host    Host   `json:"host"`
	Commit  Commit `json:"commit"`
	Hist    string `json:"hist,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	// FirstError is the text of the first failed operation, if any, so an
	// error count never comes without a reason.
	FirstError string `json:"first_error,omitempty"`
	// Command is the run's command line (Run.Command), absent when the
	// run was not started by a command.
	Command []string `json:"command,omitempty"`
	// Resources is what the process held for the line (see Resources);
	// absent where it was not measured.
	Resources *Resources `json:"resources,omitempty"`
	// Server is what the catalog server paid for the line's operations
	// (see ServerCost); absent where it was not measured.
	Server *ServerCost `json:"server,omitempty"`
	// WireBytesPerOp is the bytes a measured operation moved over the
	// client's connections, request and response, TCP payload as the
	// client wrote and read it; absent where it was not counted.
	WireBytesPerOp *float64 `json:"wire_bytes_per_op,omitempty"`
	// TimeParts is where the line's operations spent their time, as the
	// client saw its requests; absent where the client cannot tell.
	TimeParts *TimeParts `json:"time_parts,omitempty"`
}

// Loop values.
const (
	Closed = "closed" // service time: the next op starts when the last ended
	Open   = "open"   // latency from the intended start at a fixed rate
)

// skippedRecord is the JSON shape of a skipped line: provenance and the
// reason, no numbers that could be mistaken for a measurement.
type skippedRecord struct {
	Schema            int            `json:"schema"`
	TS                string         `json:"ts"`
	RunID             string         `json:"run_id"`
	Label             string         `json:"label,omitempty"`
	Target            string         `json:"target"`
	Scenario          string         `json:"scenario"`
	Kind              string         `json:"kind,omitempty"`
	Metric            Metric         `json:"metric,omitempty"`
	Better            Better         `json:"better,omitempty"`
	Threads           int            `json:"threads,omitempty"`
	Dims              Dims           `json:"dims,omitempty"`
	Skipped           string         `json:"skipped"`
	Transport         string         `json:"transport,omitempty"`
	TransportFallback string         `json:"transport_fallback,omitempty"`
	Params            map[string]any `json:"params"`
	Host              Host           `json:"host"`
	Commit            Commit         `json:"commit"`
	Command           []string       `json:"command,omitempty"`
}

// MarshalJSON writes the skipped shape for skipped lines. Every line is
// redacted (see RedactArgs, RedactParams) as it is written, so a field set
// after the line was made cannot carry a secret out either.
func (r Record) MarshalJSON() ([]byte, error) {
	r = redact(r)
	if r.Skipped != "" {
		return json.Marshal(skippedRecord{
			Schema: r.Schema, TS: r.TS, RunID: r.RunID, Label: r.Label, Target: r.Target, Scenario: r.Scenario,
			Kind: r.Kind, Metric: r.Metric, Better: r.Better, Threads: r.Threads,
			Dims: r.Dims, Skipped: r.Skipped, Transport: r.Transport, TransportFallback: r.TransportFallback,
			Params: r.Params, Host: r.Host, Commit: r.Commit, Command: r.Command,
		})
	}
	type plain Record // drops the method, avoids recursion
	return json.Marshal(plain(r))
}

// Run holds what every line of one invocation shares. It is safe for
// concurrent use: its methods only read it.
type Run struct {
	ID     string
	Host   Host
	Commit Commit
	// ClockOverhead is the harness floor (CalibrateClock) stamped on every
	// measured line.
	ClockOverhead time.Duration
	// AllowErrors is stamped on every measured line: the run exits 0 even
	// when operations failed.
	AllowErrors bool
	// Command is the command line that started the run (the program's
	// name, then its arguments), stamped on every line so a result never
	// comes without the command that produced it; lines carry it with
	// secret values redacted (RedactArgs). Empty for runs made by
	// code rather than a command (tests, library callers).
	Command []string
}

// NewRun returns a run with a fresh random id, this host's provenance and
// a freshly calibrated clock overhead.
func NewRun() *Run {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Run{ID: hex.EncodeToString(b[:]), Host: ThisHost(), Commit: ThisCommit(), ClockOverhead: CalibrateClock()}
}

// Result builds a measured line from a merged recorder. elapsed is the wall
// time of the measured phase (warm-up excluded) and gives ops_sec. The
// line's command and params are redacted copies: no secret in them
// reaches a line.
func (run *Run) Result(target, scenario, loop string, threads int, rec *Recorder, elapsed time.Duration, params map[string]any) Record {
	h := rec.h
	r := Record{
		Schema: SchemaVersion, TS: time.Now().UTC().Format(time.RFC3339Nano), RunID: run.ID,
		Target: target, Scenario: scenario, Loop: loop, Threads: threads,
		Ops: h.TotalCount(), Errors: rec.errors, DurationS: elapsed.Seconds(),
		Params: orEmpty(RedactParams(params)), Host: run.Host, Commit: run.Commit,
		ClockOverheadNS: float64(run.ClockOverhead), AllowErrors: run.AllowErrors,
		Command: RedactArgs(run.Command),
	}
	if elapsed > 0 && r.Ops > 0 {
		r.OpsSec = float64(r.Ops) / elapsed.Seconds()
	}
	if r.Ops > 0 {
		r.P50US = us(h.ValueAtQuantile(50))
		r.P99US = us(h.ValueAtQuantile(99))
		r.P999US = us(h.ValueAtQuantile(99.9))
		r.MaxUS = us(h.Max())
		r.MeanUS = h.Mean() / 1e3
	}
	if enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		r.Hist = string(enc)
	}
	return r
}

// Skipped builds a skipped line carrying the reason, redacted as Result's
// lines are.
func (run *Run) Skipped(target, scenario, reason string, params map[string]any) Record {
	return Record{
		Schema: SchemaVersion, TS: time.Now().UTC().Format(time.RFC3339Nano), RunID: run.ID,
		Target: target, Scenario: scenario, Skipped: RedactText(reason),
		Params: orEmpty(RedactParams(params)), Host: run.Host, Commit: run.Commit,
		Command: RedactArgs(run.Command),
	}
}

// DecodeHist decodes a line's hist field back into a recorder, so lines of
// several runs can be merged exactly.
func DecodeHist(hist string) (*Recorder, error) {
	if hist == "" {
		return nil, fmt.Errorf("decode hist: empty")
	}
	h, err := hdrhistogram.Decode(bytes.TrimSpace([]byte(hist)))
	if err != nil {
		return nil, fmt.Errorf("decode hist: %w", err)
	}
	return &Recorder{h: h}, nil
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
