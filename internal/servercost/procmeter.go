package servercost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// ErrInProcess means the server runs in the benchmark's own process: its
// cost cannot be told apart from the client's.
var ErrInProcess = errors.New("the server runs in the benchmark's own process")

// ProcMeter measures a server on this host from /proc. Find returns the
// server's processes at the start of each window (ListenerPIDs of its
// port, or a fixed list); the store is found from their connections
// (StorePIDs). Not safe for concurrent use.
type ProcMeter struct {
	Find func() ([]int, error)
	// Every is the memory sampling period; 0 means DefaultEvery.
	Every time.Duration

	server, store []int
	cpu0          map[int]time.Duration
	hwm0          int64
	peak          *peakSampler
}

var _ Meter = (*ProcMeter)(nil)

// ByPort returns a meter for the server listening on TCP port port.
func ByPort(port int) *ProcMeter {
	return &ProcMeter{Find: func() ([]int, error) { return ListenerPIDs(port) }}
}

// ByPIDs returns a meter for the server made of processes pids.
func ByPIDs(pids []int) *ProcMeter {
	pids = slices.Clone(pids)
	return &ProcMeter{Find: func() ([]int, error) {
		for _, p := range pids {
			if _, err := os.Stat(fmt.Sprintf("%s/%d", procRoot, p)); err != nil {
				return nil, fmt.Errorf("server process %d: %w", p, err)
			}
		}
		return pids, nil
	}}
}

// Begin finds the processes and reads their CPU time.
func (m *ProcMeter) Begin(context.Context) error {
	server, err := m.Find()
	if err != nil {
		return err
	}
	if slices.Contains(server, os.Getpid()) {
		return ErrInProcess
	}
	store, err := StorePIDs(server, []int{os.Getpid()})
	if err != nil {
		return err
	}
	m.server, m.store = server, store
	if m.cpu0, err = cpuTimes(append(slices.Clone(server), store...)); err != nil {
		return err
	}
	m.hwm0 = -1
	if len(server) == 1 {
		if mem, err := readMemory(server[0]); err == nil {
			m.hwm0 = mem.hwm
		}
	}
	every := m.Every
	if every <= 0 {
		every = DefaultEvery
	}
	m.peak = startPeak(every, func() (int64, bool) {
		v, err := sumRSS(server)
		return v, err == nil
	})
	return nil
}

// End reads the CPU time again and the memory, and finds the store's
// files. A store process that appeared in the window (a pool opening a
// connection) is counted from its start; one that ended in it is counted
// up to the last read, which Missing notes.
func (m *ProcMeter) End(context.Context) (Window, error) {
	if m.peak == nil {
		return Window{}, errors.New("servercost: End without Begin")
	}
	// CPU first: the benchmark's workers may still be finishing their
	// last operations while the rest is read.
	var serverCPU, storeCPU time.Duration
	for _, p := range m.server {
		d, err := cpuTime(p)
		if err != nil {
			return Window{}, fmt.Errorf("server process %d: %w", p, err)
		}
		serverCPU += d - m.cpu0[p]
	}
	storeCPU, store, gone := storeCPUSince(m.store, m.cpu0, func() ([]int, error) {
		return StorePIDs(m.server, []int{os.Getpid()})
	})
	peak := m.peak.end()
	m.peak = nil
	w := Window{Source: SourceProc, PIDs: m.server}
	w.StorePIDs = store
	total := serverCPU + storeCPU
	w.CPU = &total
	if len(store) > 0 {
		w.StoreCPU = &storeCPU
	} else {
		w.miss("store_cpu", "no store process: the store runs inside the server's process (bbolt, RocksDB, SQLite), its CPU is in the server's")
	}
	if gone > 0 {
		w.miss("store_cpu", fmt.Sprintf("%d store processes ended in the window; their CPU in it is not counted", gone))
	}
	after, err := sumRSS(m.server)
	if err != nil {
		return Window{}, err
	}
	w.RSSAfter = &after
	peak = max(peak, after)
	if m.hwm0 >= 0 {
		if mem, err := readMemory(m.server[0]); err == nil && mem.hwm > m.hwm0 {
			peak = max(peak, mem.hwm) // the peak was reached inside the window
		}
	}
	w.RSSPeak = &peak
	parts := storeParts(append(slices.Clone(m.server), store...))
	if len(parts) == 0 {
		w.miss("store_bytes", "no store file (PostgreSQL database, RocksDB, SQLite or bbolt) is open in the server's or the store's processes")
	} else if n, err := storeBytes(parts); err != nil {
		w.miss("store_bytes", err.Error())
	} else {
		w.StoreBytes = &n
	}
	return w, nil
}

// cpuTimes reads the CPU time of each of pids.
func cpuTimes(pids []int) (map[int]time.Duration, error) {
	out := make(map[int]time.Duration, len(pids))
	for _, p := range pids {
		d, err := cpuTime(p)
		if err != nil {
			return nil, fmt.Errorf("process %d: %w", p, err)
		}
		out[p] = d
	}
	return out, nil
}

// storeCPUSince is the CPU the store's processes used since cpu0: each of
// known that still runs (one that ended is counted in gone, its CPU in the
// window lost), and each that find returns now and cpu0 does not know
// (opened in the window: all of its CPU is the window's). store is every
// one counted, sorted.
func storeCPUSince(known []int, cpu0 map[int]time.Duration, find func() ([]int, error)) (cpu time.Duration, store []int, gone int) {
	for _, p := range known {
		d, err := cpuTime(p)
		if err != nil {
			gone++
			continue
		}
		cpu += d - cpu0[p]
	}
	store = slices.Clone(known)
	if later, err := find(); err == nil {
		for _, p := range later {
			if _, seen := cpu0[p]; seen {
				continue
			}
			if d, err := cpuTime(p); err == nil {
				cpu += d
				store = append(store, p)
			}
		}
		slices.Sort(store)
	}
	return cpu, store, gone
}

// sumRSS sums the resident sets of pids.
func sumRSS(pids []int) (int64, error) {
	var total int64
	for _, p := range pids {
		mem, err := readMemory(p)
		if err != nil {
			return 0, fmt.Errorf("process %d: %w", p, err)
		}
		total += mem.rss
	}
	return total, nil
}
