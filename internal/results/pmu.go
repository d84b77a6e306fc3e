package results

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pmu counts retired instructions and CPU cycles of every thread of the
// process: one inheriting perf event per thread alive when it was opened
// (threads those create are counted by inheritance), summed when read.
type pmu struct {
	instr, cycles []int
}

// errNoPMU is wrapped when the host has no hardware counters to open.
var errNoPMU = errors.New("no PMU")

func openPMU() (*pmu, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("%w: list threads: %w", errNoPMU, err)
	}
	p := &pmu{}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		fi, err := perfOpen(tid, unix.PERF_COUNT_HW_INSTRUCTIONS)
		if err != nil {
			_ = p.close()
			return nil, fmt.Errorf("%w: %w", errNoPMU, err)
		}
		fc, err := perfOpen(tid, unix.PERF_COUNT_HW_CPU_CYCLES)
		if err != nil {
			unix.Close(fi)
			_ = p.close()
			return nil, fmt.Errorf("%w: %w", errNoPMU, err)
		}
		p.instr, p.cycles = append(p.instr, fi), append(p.cycles, fc)
	}
	if len(p.instr) == 0 {
		return nil, fmt.Errorf("%w: no threads", errNoPMU)
	}
	return p, nil
}

func perfOpen(tid int, config uint64) (int, error) {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_HARDWARE,
		Config: config,
		Bits:   unix.PerfBitInherit,
	}
	attr.Size = uint32(binary.Size(attr))
	fd, err := unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("perf_event_open: %w", err)
	}
	return fd, nil
}

// read sums the counters; false when any read fails.
func (p *pmu) read() (instr, cycles uint64, ok bool) {
	var b [8]byte
	sum := func(fds []int) (uint64, bool) {
		var s uint64
		for _, fd := range fds {
			if n, err := unix.Read(fd, b[:]); err != nil || n != 8 {
				return 0, false
			}
			s += binary.NativeEndian.Uint64(b[:])
		}
		return s, true
	}
	i, ok1 := sum(p.instr)
	c, ok2 := sum(p.cycles)
	return i, c, ok1 && ok2
}

func (p *pmu) close() error {
	var err error
	for _, fd := range append(p.instr, p.cycles...) {
		err = errors.Join(err, unix.Close(fd))
	}
	p.instr, p.cycles = nil, nil
	return err
}
