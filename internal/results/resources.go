package results

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Resources is what a process holds at one moment, as Linux's /proc says:
// the resource facts a result line carries (`resources`). Every field is
// absent when it was not measured and present, possibly 0, when it was.
type Resources struct {
	// Scope says what the values count, e.g. "process, after the cell's
	// warm-up, other transports' idle connections closed".
	Scope string `json:"scope,omitempty"`
	// Threads is the process's OS threads (/proc/self/status Threads). Go
	// keeps the threads it started, so it is the high-water mark so far.
	Threads *int `json:"threads,omitempty"`
	// FDs is the process's open file descriptors (/proc/self/fd), not
	// counting the one used to list them.
	FDs *int `json:"fds,omitempty"`
	// Rings is the process's io_uring instances: its io_uring mappings at
	// offset 0 (each instance maps its submission ring there once).
	Rings *int `json:"rings,omitempty"`
	// RingFDs is how many of the descriptors are io_uring files; an
	// instance may have more than one (a duplicate handed to Go's poller).
	RingFDs *int `json:"ring_fds,omitempty"`
	// RingMapMiB is the size of the process's io_uring mappings (submission
	// and completion rings, SQE arrays) in /proc/self/maps, MiB.
	RingMapMiB *float64 `json:"ring_map_mib,omitempty"`
	// VMSizeMiB is the process's virtual size (/proc/self/status VmSize), MiB.
	VMSizeMiB *float64 `json:"vm_size_mib,omitempty"`
}

// ringFile is how Linux names an io_uring instance's file, both as the
// target of a /proc/self/fd link and as the path of its mappings.
const ringFile = "anon_inode:[io_uring]"

// ReadResources reads the process's resources from /proc. A value /proc
// would not give is left absent; err joins what went wrong (nil when every
// value was read). It reads only this process's files; safe for concurrent
// use.
func ReadResources() (Resources, error) {
	var r Resources
	var errs []string
	if st, err := os.ReadFile("/proc/self/status"); err != nil {
		errs = append(errs, err.Error())
	} else {
		if v, ok := statusField(st, "Threads:"); ok {
			n := int(v)
			r.Threads = &n
		} else {
			errs = append(errs, "no Threads in /proc/self/status")
		}
		if v, ok := statusField(st, "VmSize:"); ok {
			mib := float64(v) / 1024 // kB
			r.VMSizeMiB = &mib
		} else {
			errs = append(errs, "no VmSize in /proc/self/status")
		}
	}
	if ents, err := os.ReadDir("/proc/self/fd"); err != nil {
		errs = append(errs, err.Error())
	} else {
		fds, rings := 0, 0
		for _, e := range ents {
			target, err := os.Readlink("/proc/self/fd/" + e.Name())
			if err != nil {
				continue // the descriptor ReadDir used, closed since
			}
			fds++
			if target == ringFile {
				rings++
			}
		}
		r.FDs, r.RingFDs = &fds, &rings
	}
	if maps, err := os.ReadFile("/proc/self/maps"); err != nil {
		errs = append(errs, err.Error())
	} else if mib, rings, err := ringMappings(maps); err != nil {
		errs = append(errs, err.Error())
	} else {
		r.RingMapMiB, r.Rings = &mib, &rings
	}
	if len(errs) > 0 {
		return r, fmt.Errorf("results: resources: %s", strings.Join(errs, "; "))
	}
	return r, nil
}

// statusField returns the first number after name in /proc/self/status.
func statusField(st []byte, name string) (int64, bool) {
	for line := range bytes.Lines(st) {
		rest, ok := bytes.CutPrefix(line, []byte(name))
		if !ok {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		return v, err == nil
	}
	return 0, false
}

// ringMappings sums the sizes of the io_uring mappings in a maps file, MiB,
// and counts the instances (mappings at offset 0).
func ringMappings(maps []byte) (mib float64, rings int, err error) {
	var total uint64
	sc := bufio.NewScanner(bytes.NewReader(maps))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != ringFile {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || b < a {
			return 0, 0, fmt.Errorf("bad /proc/self/maps range %q", f[0])
		}
		total += b - a
		if off, err := strconv.ParseUint(f[2], 16, 64); err == nil && off == 0 {
			rings++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("read /proc/self/maps: %w", err)
	}
	return float64(total) / (1 << 20), rings, nil
}
