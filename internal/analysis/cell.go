package analysis

import (
	"encoding/json"
	"fmt"
	"strings"
)

// CellKey identifies what a line measured, independent of when: the host
// (unless a comparison crosses hosts), the target, the scenario, the loop
// and the parameters that define the work. Two lines of the same cell are
// two measurements of the same thing.
type CellKey struct {
	Host     string // HostKey of the line, "" when hosts are ignored
	Target   string
	Scenario string
	Loop     string
	Params   string // canonical JSON of the defining params
	Dims     string // canonical JSON of the line's level (results.Dims)
}

func (c CellKey) String() string {
	s := c.Target + " " + c.Scenario
	if c.Loop != "" && c.Loop != "closed" {
		s += " (" + c.Loop + ")"
	}
	return s
}

// placeParams are params that say where or how long something ran, not
// what was measured: temp directories, ephemeral ports, warm-up lengths,
// round and iteration counts, and derived results. They never split cells.
var placeParams = map[string]bool{
	"dir": true, "url": true, "addr": true, "mib_s": true,
	"warmup": true, "warmup_s": true, "server_warmup_s": true,
	"rounds": true, "iterations": true, "timeout": true,
	"shard": true, "shards": true, "start_at": true,
	"achieved_rate": true, "rate_kept": true, "rate_note": true, "sched_p50_us": true, "sched_p99_us": true,
	"open_workers": true, "setup_parallel": true, "preceded_by": true,
	// An injected calibration slowdown is what a comparison is to find,
	// not a different cell.
	"test_delay_us": true,
}

// HostKey is the identity of a machine for matching: hostname, cores (and
// GOMAXPROCS where the process ran with a different number of Ps), CPU
// model, OS and architecture. Kernel and Go version are left out: a
// toolchain or kernel upgrade is exactly what a comparison may want to see.
func (l Line) HostKey() string {
	h := l.Host
	return fmt.Sprintf("%s|%d%s|%s|%s/%s", h.Hostname, h.Cores, procsKey(h.GOMAXPROCS), h.CPU, h.OS, h.Arch)
}

// procsKey is "" when the process ran with one P per core (gomaxprocs 0),
// else "/P".
func procsKey(gomaxprocs int) string {
	if gomaxprocs == 0 {
		return ""
	}
	return fmt.Sprintf("/%d", gomaxprocs)
}

// HostLabel is a short human description of the line's host.
func (l Line) HostLabel() string {
	h := l.Host
	procs := ""
	if h.GOMAXPROCS != 0 {
		procs = fmt.Sprintf(", GOMAXPROCS %d", h.GOMAXPROCS)
	}
	return fmt.Sprintf("%s (%d cores%s, %s, %s %s, %s)", h.Hostname, h.Cores, procs, h.CPU, h.OS, h.Kernel, h.Go)
}

// CellOf returns the line's cell; withHost=false drops the host from the
// key (cross-host comparison).
func CellOf(l Line, withHost bool) CellKey {
	c := CellKey{Target: l.Target, Scenario: l.Scenario, Loop: l.Loop, Params: defining(l), Dims: dimsKey(l)}
	if withHost {
		c.Host = l.HostKey()
	}
	return c
}

func defining(l Line) string { return definingParams(l, false) }

// definingSansTarget is defining without params that name the line's own
// target (a transport run stamps "transport": "uring" on uring's lines),
// so the same cell of two targets of one run can be paired.
func definingSansTarget(l Line) string { return definingParams(l, true) }

func definingParams(l Line, sansTarget bool) string {
	p := make(map[string]any, len(l.Params)+1)
	for k, v := range l.Params {
		if sansTarget && v == any(l.Target) {
			continue
		}
		// A param that is also one of the line's measures is a measured
		// value an older writer kept in params (results.Decode copies it
		// to measures): it differs run by run and never defines the work.
		if _, measured := l.Measures[k]; !placeParams[k] && !measured && !strings.HasPrefix(k, "prop.") {
			p[k] = v
		}
	}
	if l.Rate != nil {
		p["rate"] = *l.Rate
	}
	b, err := json.Marshal(p) // map keys are sorted: canonical
	if err != nil {
		return fmt.Sprint(p)
	}
	return string(b)
}

// dimsKey is the line's dims as canonical JSON ("" for none): results.Decode
// fills them on lines older than dims, so old and new lines of one level
// share a cell.
func dimsKey(l Line) string {
	if len(l.Dims) == 0 {
		return ""
	}
	b, err := json.Marshal(l.Dims) // map keys are sorted: canonical
	if err != nil {
		return fmt.Sprint(l.Dims)
	}
	return string(b)
}
