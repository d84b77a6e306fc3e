package servercost

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime and stime in /proc/PID/stat: Linux reports
// them in USER_HZ ticks, 100 per second on every architecture it exports
// to user space.
const userHZ = 100

// procRoot is where the proc file system is mounted.
const procRoot = "/proc"

// cpuTime returns the user+system CPU time process pid has used, all its
// threads (exited ones too) included.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", procRoot, pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a
// /proc/PID/stat line. The command name (field 2) may hold spaces and
// parentheses, so the fields are counted from its last ')'.
func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat line without a command name: %.60q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("stat line with %d fields after the command name, want at least 13", len(f))
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat line: utime %q stime %q are not counts", f[11], f[12])
	}
	return time.Duration(u+s) * (time.Second / userHZ), nil
}

// memory is a process's resident set now and its peak so far, bytes.
type memory struct{ rss, hwm int64 }

// readMemory reads VmRSS and VmHWM of /proc/PID/status.
func readMemory(pid int) (memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/status", procRoot, pid))
	if err != nil {
		return memory{}, err
	}
	return parseStatusMemory(b)
}

// parseStatusMemory reads VmRSS and VmHWM (kB) of a /proc/PID/status file.
func parseStatusMemory(b []byte) (memory, error) {
	var m memory
	var haveRSS, haveHWM bool
	for line := range bytes.Lines(b) {
		for _, k := range []struct {
			name string
			dst  *int64
			ok   *bool
		}{{"VmRSS:", &m.rss, &haveRSS}, {"VmHWM:", &m.hwm, &haveHWM}} {
			rest, found := bytes.CutPrefix(line, []byte(k.name))
			if !found {
				continue
			}
			f := strings.Fields(string(rest))
			if len(f) < 1 {
				continue
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil || kb < 0 {
				return memory{}, fmt.Errorf("status %s %q is not a size", k.name, f[0])
			}
			*k.dst, *k.ok = kb<<10, true
		}
	}
	if !haveRSS || !haveHWM {
		return memory{}, fmt.Errorf("status without VmRSS and VmHWM (a kernel thread or a zombie)")
	}
	return m, nil
}
