package s3bench

import (
	"strings"
	"syscall"
	"time"
)

// processCPU is the user + system CPU time this process has used, from
// getrusage; false when the system would not say.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// cpuScope says whose work params.cpu_us_per_op counts: the whole
// process, which against the in-process control store includes the
// store's own work (the same on both transports).
func cpuScope(endpoint string) string {
	if strings.HasPrefix(endpoint, "control") { // control, control-close, control+load
		return "process: client and the in-process control store"
	}
	return "process: the client (the store runs elsewhere)"
}
