package results

import (
	"syscall"
	"time"
)

// ProcessCPU is the user + system CPU time this process has used, from
// getrusage; false when the system would not say.
func ProcessCPU() (time.Duration, bool) {
	user, sys, ok := ProcessCPUTimes()
	return user + sys, ok
}

// ProcessCPUTimes is ProcessCPU's user and system times apart.
func ProcessCPUTimes() (user, sys time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}
