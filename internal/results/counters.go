package results

import (
	"bytes"
	"context"
	"os"
	"runtime/metrics"
	"strconv"
)

// Counters are what the process did per operation of a measured phase,
// counted rather than timed, so they do not depend on the moment the way
// wall time does. Each is absent when it could not be read — never 0.
//
//   - Allocs and AllocBytes: heap objects and bytes allocated by the whole
//     process (Go runtime metrics /gc/heap/allocs:objects and :bytes),
//     in-process servers and background goroutines included.
//   - ReadSyscalls and WriteSyscalls: the process's read- and write-family
//     system calls (syscr and syscw of /proc/self/io: read, pread, readv,
//     write, pwrite, writev, sendfile and the like, on files and sockets
//     alike). Other calls (epoll, futex, recvmsg, sendmsg, io_uring_enter,
//     mmap) are not counted; the fields are absent where /proc/self/io
//     cannot be read.
//   - WriteBytes: the bytes the process handed to write-family system
//     calls (wchar of /proc/self/io), files and sockets alike: what a
//     write costs in bytes at the system-call boundary, before the page
//     cache rounds it to pages. (write_bytes of /proc/self/io is not used:
//     it counts whole folios as they are dirtied, so on kernels with large
//     page-cache folios one 4 KiB write into a large file counts up to
//     megabytes.) Absent with the syscall counts.
//   - Instructions and Cycles: retired instructions and CPU cycles of the
//     process's threads from the PMU (perf_event_open), user and kernel;
//     absent on hosts without a PMU or where perf events are forbidden.
//
// A Counters is a value; it is safe for concurrent use.
type Counters struct {
	Allocs        *float64 `json:"allocs_per_op,omitempty"`
	AllocBytes    *float64 `json:"alloc_bytes_per_op,omitempty"`
	ReadSyscalls  *float64 `json:"read_syscalls_per_op,omitempty"`
	WriteSyscalls *float64 `json:"write_syscalls_per_op,omitempty"`
	WriteBytes    *float64 `json:"write_syscall_bytes_per_op,omitempty"`
	Instructions  *float64 `json:"instructions_per_op,omitempty"`
	Cycles        *float64 `json:"cycles_per_op,omitempty"`
}

// Empty reports whether no counter was read.
func (c Counters) Empty() bool {
	return c.Allocs == nil && c.AllocBytes == nil && c.ReadSyscalls == nil && c.WriteSyscalls == nil && c.WriteBytes == nil && c.Instructions == nil && c.Cycles == nil
}

// CounterSnapshot is the process's cumulative counters at one instant.
// The zero value has nothing read.
type CounterSnapshot struct {
	allocs, bytes        uint64
	heapOK               bool
	syscr, syscw, wbytes uint64
	ioOK                 bool
	instructions, cycles uint64
	pmuOK                bool
}

// CounterDelta is what happened between two snapshots, summed over the
// phases it was added from.
type CounterDelta struct {
	d CounterSnapshot
	// n counts the deltas added; a counter is kept only when every one
	// had it.
	n, heapN, ioN, pmuN int
}

// Add sums the change from a to b into d.
func (d *CounterDelta) Add(a, b CounterSnapshot) {
	d.n++
	if a.heapOK && b.heapOK {
		d.heapN++
		d.d.allocs += b.allocs - a.allocs
		d.d.bytes += b.bytes - a.bytes
	}
	if a.ioOK && b.ioOK {
		d.ioN++
		d.d.syscr += b.syscr - a.syscr
		d.d.syscw += b.syscw - a.syscw
		d.d.wbytes += b.wbytes - a.wbytes
	}
	if a.pmuOK && b.pmuOK {
		d.pmuN++
		d.d.instructions += b.instructions - a.instructions
		d.d.cycles += b.cycles - a.cycles
	}
}

// Merge adds everything o summed into d.
func (d *CounterDelta) Merge(o CounterDelta) {
	d.n += o.n
	d.heapN += o.heapN
	d.ioN += o.ioN
	d.pmuN += o.pmuN
	d.d.allocs += o.d.allocs
	d.d.bytes += o.d.bytes
	d.d.syscr += o.d.syscr
	d.d.syscw += o.d.syscw
	d.d.wbytes += o.d.wbytes
	d.d.instructions += o.d.instructions
	d.d.cycles += o.d.cycles
}

// PerOp divides the summed counters by ops operations. A counter missing
// from any added phase is absent; nothing is present for ops ≤ 0.
func (d CounterDelta) PerOp(ops int64) Counters {
	var c Counters
	if ops <= 0 || d.n == 0 {
		return c
	}
	per := func(v uint64) *float64 {
		x := float64(v) / float64(ops)
		return &x
	}
	if d.heapN == d.n {
		c.Allocs, c.AllocBytes = per(d.d.allocs), per(d.d.bytes)
	}
	if d.ioN == d.n {
		c.ReadSyscalls, c.WriteSyscalls, c.WriteBytes = per(d.d.syscr), per(d.d.syscw), per(d.d.wbytes)
	}
	if d.pmuN == d.n {
		c.Instructions, c.Cycles = per(d.d.instructions), per(d.d.cycles)
	}
	return c
}

// CounterSource reads counter snapshots: the runtime's heap counters and
// /proc/self/io always, and the PMU when OpenCounters could open it. It is
// safe for concurrent use once opened; Close it when done.
type CounterSource struct {
	pmu    *pmu
	pmuErr error
}

// OpenCounters opens a counter source. It never fails: a counter the host
// cannot give is absent from every snapshot, and PMUErr says why the PMU
// is not read.
func OpenCounters() *CounterSource {
	p, err := openPMU()
	return &CounterSource{pmu: p, pmuErr: err}
}

// PMUErr says why instructions and cycles are not read; nil when they are.
func (s *CounterSource) PMUErr() error { return s.pmuErr }

// PMU reports whether instructions and cycles are read.
func (s *CounterSource) PMU() bool { return s != nil && s.pmu != nil }

// Close releases the PMU's file descriptors.
func (s *CounterSource) Close() error {
	if s == nil || s.pmu == nil {
		return nil
	}
	return s.pmu.close()
}

// Snapshot reads the counters now. A nil source reads the heap counters
// and /proc/self/io only.
func (s *CounterSource) Snapshot() CounterSnapshot {
	var c CounterSnapshot
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(samples)
	if samples[0].Value.Kind() == metrics.KindUint64 && samples[1].Value.Kind() == metrics.KindUint64 {
		c.allocs, c.bytes, c.heapOK = samples[0].Value.Uint64(), samples[1].Value.Uint64(), true
	}
	c.syscr, c.syscw, c.wbytes, c.ioOK = readProcIO()
	if s != nil && s.pmu != nil {
		c.instructions, c.cycles, c.pmuOK = s.pmu.read()
	}
	return c
}

// readProcIO reads syscr, syscw and wchar of /proc/self/io.
func readProcIO() (r, w, wb uint64, ok bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0, 0, false
	}
	var okR, okW, okB bool
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
		if err != nil {
			continue
		}
		switch string(k) {
		case "syscr":
			r, okR = n, true
		case "syscw":
			w, okW = n, true
		case "wchar":
			wb, okB = n, true
		}
	}
	return r, w, wb, okR && okW && okB
}

type counterKey struct{}

// WithCounters returns ctx carrying src, so measuring loops deep in a call
// chain snapshot the same source.
func WithCounters(ctx context.Context, src *CounterSource) context.Context {
	return context.WithValue(ctx, counterKey{}, src)
}

// SnapshotFrom reads a snapshot from the source ctx carries (the heap
// counters and /proc/self/io only, when it carries none).
func SnapshotFrom(ctx context.Context) CounterSnapshot {
	src, _ := ctx.Value(counterKey{}).(*CounterSource)
	return src.Snapshot()
}
