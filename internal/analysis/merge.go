package analysis

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
)

// Errors of Merge.
var (
	// ErrNoHist: a line carries no histogram, so it cannot be merged
	// exactly (and averaging its percentiles is not allowed).
	ErrNoHist = errors.New("line has no histogram")
	// ErrMixedBuilds: lines of one cell come from different commits.
	ErrMixedBuilds = errors.New("lines of one cell come from different builds")
	// ErrSkewedWindows: the measured windows of a cross-host cell's
	// sources overlap less than MinOverlap, so the merged line would add
	// operations that did not run at the same time.
	ErrSkewedWindows = errors.New("the workers' measured windows overlap too little")
)

// MinOverlap is the least share of the merged span (from the first
// source's start to the last source's end) that every source of a
// cross-host merge must have measured together: below it, a worker that
// started late or ran long makes the merged ops/s describe a load that
// never ran at once.
const MinOverlap = 0.90

// MergeOptions shape a merge.
type MergeOptions struct {
	// CrossHost merges lines of the same cell measured on different hosts
	// (a distributed run); otherwise each host's lines stay apart.
	CrossHost bool
	// Force merges a cross-host cell whose sources' windows overlap less
	// than MinOverlap (the line still carries its skew).
	Force bool
}

// Merged is one cell's merged line.
type Merged struct {
	Cell    CellKey
	Sources []Line
	Hist    *hdrhistogram.Histogram
	// JSON is the merged result line, ready to write.
	JSON []byte
}

// droppedOnMerge are fields of a source line that do not survive a merge:
// per-round samples and values that belong to one process.
var droppedOnMerge = []string{"rounds", "round_p50_us", "round_ops_sec", "merged_from", "hosts"}

// Merge adds the decoded histograms of the lines of each cell (never
// averaging a percentile) and returns one merged line per cell, in
// first-seen order. ops, percentiles, max and mean come from the merged
// histogram; errors (and warmup_errors) are summed; merged_from lists the
// source run ids. When the sources' measured windows overlap (workers of
// one distributed run) duration_s spans them all and threads add up;
// otherwise (runs one after another) durations add up. Skipped lines are
// ignored; a line without a histogram is an error.
func Merge(lines []Line, o MergeOptions) ([]Merged, error) {
	groups := map[CellKey][]Line{}
	var order []CellKey
	for _, l := range lines {
		if l.Skipped != "" {
			continue
		}
		c := CellOf(l, !o.CrossHost)
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], l)
	}
	out := make([]Merged, 0, len(order))
	for _, c := range order {
		m, err := mergeCell(c, groups[c], o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// DecodeHist decodes a line's encoded histogram.
func DecodeHist(l Line) (*hdrhistogram.Histogram, error) {
	if l.Hist == "" {
		return nil, fmt.Errorf("%s: %w", l.Where(), ErrNoHist)
	}
	h, err := hdrhistogram.Decode(bytes.TrimSpace([]byte(l.Hist)))
	if err != nil {
		return nil, fmt.Errorf("%s: decode hist: %w", l.Where(), err)
	}
	return h, nil
}

func mergeCell(c CellKey, ls []Line, o MergeOptions) (Merged, error) {
	first := ls[0]
	var hs histSum
	var errs, warmErrs int64
	haveWarm := false
	runIDs := map[string]bool{}
	start, end := time.Time{}, time.Time{}
	var totalDur float64
	threads, maxThreads := 0, 0
	firstErr := ""
	for i, l := range ls {
		if l.Commit.SHA != first.Commit.SHA || l.Commit.Dirty != first.Commit.Dirty {
			return Merged{}, fmt.Errorf("%w: %s is %s (dirty %v), %s is %s (dirty %v)", ErrMixedBuilds,
				first.Where(), first.Commit.SHA, first.Commit.Dirty, l.Where(), l.Commit.SHA, l.Commit.Dirty)
		}
		h, err := DecodeHist(l)
		if err != nil {
			return Merged{}, err
		}
		hs.add(h)
		errs += l.Errors
		if l.WarmupErrors != nil {
			warmErrs += *l.WarmupErrors
			haveWarm = true
		}
		if firstErr == "" {
			firstErr = l.FirstError
		}
		runIDs[l.RunID] = true
		threads += l.Threads
		maxThreads = max(maxThreads, l.Threads)
		totalDur += l.DurationS
		s := l.TS.Add(-time.Duration(l.DurationS * float64(time.Second)))
		if i == 0 || s.After(start) {
			start = s // latest start
		}
		if i == 0 || l.TS.Before(end) {
			end = l.TS // earliest end
		}
	}
	overlap := len(ls) > 1 && start.Before(end)
	var spanStart, spanEnd time.Time
	for i, l := range ls {
		s := l.TS.Add(-time.Duration(l.DurationS * float64(time.Second)))
		if i == 0 || s.Before(spanStart) {
			spanStart = s
		}
		if i == 0 || l.TS.After(spanEnd) {
			spanEnd = l.TS
		}
	}
	var startSkew, endSkew time.Duration
	if len(ls) > 1 {
		startSkew = start.Sub(spanStart) // latest start - earliest start
		endSkew = spanEnd.Sub(end)       // latest end - earliest end
		span := spanEnd.Sub(spanStart)
		shared := end.Sub(start)
		if o.CrossHost && !o.Force && span > 0 && float64(shared) < MinOverlap*float64(span) {
			return Merged{}, fmt.Errorf("%w: %s: they measured together for %.0f%% of the %.3f s from the first start to the last end (starts %d ms apart, ends %d ms apart; at least %.0f%% is needed): start the workers at one instant (--start-at) and give them the same --duration, or pass --force to merge anyway",
				ErrSkewedWindows, c, 100*max(0, shared.Seconds())/span.Seconds(), span.Seconds(), startSkew.Milliseconds(), endSkew.Milliseconds(), 100*MinOverlap)
		}
	}
	dur := totalDur
	th := maxThreads
	if overlap {
		dur = spanEnd.Sub(spanStart).Seconds()
		th = threads
	}
	sum := hs.histogram()
	ops := sum.TotalCount()

	out := map[string]json.RawMessage{}
	for k, v := range first.raw {
		out[k] = v
	}
	for _, k := range droppedOnMerge {
		delete(out, k)
	}
	ids := make([]string, 0, len(runIDs))
	for id := range runIDs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	h := sha256.Sum256([]byte(strings.Join(ids, ",")))
	set := func(k string, v any) {
		b, err := json.Marshal(v)
		if err == nil {
			out[k] = b
		}
	}
	set("ts", spanEnd.UTC().Format(time.RFC3339Nano))
	set("run_id", "merged-"+hex.EncodeToString(h[:6]))
	set("merged_from", ids)
	set("threads", th)
	if overlap {
		// How far apart the sources' measured windows began and ended.
		set("skew_start_ms", float64(startSkew.Microseconds())/1e3)
		set("skew_end_ms", float64(endSkew.Microseconds())/1e3)
	} else {
		delete(out, "skew_start_ms")
		delete(out, "skew_end_ms")
	}
	if len(first.Dims) > 0 {
		set("dims", first.Dims) // the level every source measured, also on lines older than dims
	}
	set("ops", ops)
	set("errors", errs)
	set("duration_s", dur)
	if dur > 0 {
		set("ops_sec", float64(ops)/dur)
	} else {
		delete(out, "ops_sec")
	}
	if ops > 0 {
		set("p50_us", us(sum.ValueAtQuantile(50)))
		set("p99_us", us(sum.ValueAtQuantile(99)))
		set("p999_us", us(sum.ValueAtQuantile(99.9)))
		set("max_us", us(sum.Max()))
		set("mean_us", sum.Mean()/1e3)
	} else {
		for _, k := range []string{"p50_us", "p99_us", "p999_us", "max_us", "mean_us"} {
			delete(out, k)
		}
	}
	if haveWarm {
		set("warmup_errors", warmErrs)
	}
	if firstErr != "" {
		set("first_error", firstErr)
	}
	if !sameControl(ls) {
		// Each source measured its own control; their p50s cannot be
		// merged without their histograms.
		delete(out, "control_p50_us")
	}
	params := map[string]any{}
	for k, v := range first.Params {
		if k != "shard" {
			params[k] = v
		}
	}
	set("params", params)
	if hosts := hostsOfLines(ls); len(hosts) > 1 {
		set("hosts", hosts)
		set("host", combinedHost(hosts))
	}
	enc, err := sum.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return Merged{}, fmt.Errorf("encode merged hist of %s: %w", c, err)
	}
	set("hist", string(enc))
	return Merged{Cell: c, Sources: ls, Hist: sum, JSON: orderedJSON(out)}, nil
}

// histSum adds histograms. Histograms of the same layout (every
// katbench line's) are added count by count, which is exact and far cheaper
// than replaying values; others go through Merge. The zero value is empty.
type histSum struct {
	acc   *hdrhistogram.Snapshot
	other *hdrhistogram.Histogram // sums of differing layouts
}

func (s *histSum) add(h *hdrhistogram.Histogram) {
	b := h.Export()
	if s.acc == nil {
		s.acc = b
		return
	}
	a := s.acc
	if a.LowestTrackableValue != b.LowestTrackableValue || a.HighestTrackableValue != b.HighestTrackableValue ||
		a.SignificantFigures != b.SignificantFigures || len(a.Counts) != len(b.Counts) {
		if s.other == nil {
			s.other = h
		} else {
			s.other.Merge(h)
		}
		return
	}
	for i, c := range b.Counts {
		a.Counts[i] += c
	}
}

func (s *histSum) histogram() *hdrhistogram.Histogram {
	h := hdrhistogram.Import(s.acc)
	if s.other != nil {
		h.Merge(s.other)
	}
	return h
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

func sameControl(ls []Line) bool {
	for _, l := range ls {
		a, b := ls[0].ControlP50US, l.ControlP50US
		if (a == nil) != (b == nil) || (a != nil && *a != *b) {
			return false
		}
	}
	return true
}

func hostsOfLines(ls []Line) []results.Host {
	var hs []results.Host
	for _, l := range ls {
		dup := false
		for _, h := range hs {
			if h == l.Host {
				dup = true
			}
		}
		if !dup {
			hs = append(hs, l.Host)
		}
	}
	return hs
}

// combinedHost describes several hosts as one: names and differing
// fields joined with "+", cores added up.
func combinedHost(hs []results.Host) results.Host {
	join := func(f func(results.Host) string) string {
		var vs []string
		for _, h := range hs {
			if v := f(h); !contains(vs, v) {
				vs = append(vs, v)
			}
		}
		return strings.Join(vs, "+")
	}
	c := results.Host{
		Hostname: join(func(h results.Host) string { return h.Hostname }),
		CPU:      join(func(h results.Host) string { return h.CPU }),
		Kernel:   join(func(h results.Host) string { return h.Kernel }),
		Go:       join(func(h results.Host) string { return h.Go }),
		OS:       join(func(h results.Host) string { return h.OS }),
		Arch:     join(func(h results.Host) string { return h.Arch }),
	}
	procs := 0
	for _, h := range hs {
		c.Cores += h.Cores
		procs += h.GOMAXPROCS
		if h.GOMAXPROCS == 0 {
			procs += h.Cores
		}
	}
	if procs != c.Cores {
		c.GOMAXPROCS = procs
	}
	return c
}

// lineOrder is the field order of a result line; other fields follow in
// name order, hist last.
var lineOrder = []string{"schema", "ts", "run_id", "merged_from", "target", "scenario", "loop",
	"threads", "ops", "errors", "warmup_errors", "duration_s", "ops_sec", "p50_us", "p99_us", "p999_us",
	"max_us", "mean_us", "control_p50_us"}

func orderedJSON(m map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	write := func(k string) {
		v, ok := m[k]
		if !ok {
			return
		}
		if n > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
		n++
	}
	done := map[string]bool{"hist": true}
	for _, k := range lineOrder {
		write(k)
		done[k] = true
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		if !done[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		write(k)
	}
	write("hist")
	b.WriteByte('}')
	return b.Bytes()
}

// MergeFiles merges the lines of paths (stdin when none: LoadAll) and
// writes the merged lines to the file out, or to stdout when out is "".
// Unreadable input, lines Merge refuses and input without a measured line
// are ErrInput; nothing is written then.
func MergeFiles(paths []string, stdin io.Reader, stdout io.Writer, out string, o MergeOptions) error {
	lines, err := LoadAll(paths, stdin)
	if err != nil {
		return usage.Wrap(ErrInput, err)
	}
	ms, err := Merge(lines, o)
	if err != nil {
		return usage.Wrap(ErrInput, err)
	}
	if len(ms) == 0 {
		return usage.Errorf(ErrInput, "nothing to merge: no measured lines in the input")
	}
	var buf bytes.Buffer
	for _, m := range ms {
		buf.Write(m.JSON)
		buf.WriteByte('\n')
	}
	if out == "" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	return results.WriteFileAtomic(out, buf.Bytes())
}
