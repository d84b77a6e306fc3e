package uring

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// ForceFailEnv, when set to "1" in the environment, makes every NewRing (and
// so Available and NewTransport) fail with ErrUnavailable. It exists so the
// fallback to net/http can be tested and demonstrated on any machine.
const ForceFailEnv = "KATBENCH_URING_FORCE_FAIL"

// ForceFail is the in-process form of ForceFailEnv, for tests. Set it before
// building transports; it is read without synchronisation.
var ForceFail bool

func forcedFailure() error {
	if ForceFail || os.Getenv(ForceFailEnv) == "1" {
		return fmt.Errorf("%w: forced by test hook (%s=1)", ErrUnavailable, ForceFailEnv)
	}
	return nil
}

const disabledPath = "/proc/sys/kernel/io_uring_disabled"

// disabledSysctl describes kernel.io_uring_disabled when it restricts
// io_uring, and returns "" otherwise.
func disabledSysctl() string {
	raw, err := os.ReadFile(disabledPath)
	if err != nil {
		return ""
	}
	switch strings.TrimSpace(string(raw)) {
	case "1":
		return "kernel.io_uring_disabled=1: only members of kernel.io_uring_group may create rings"
	case "2":
		return "kernel.io_uring_disabled=2: io_uring is disabled"
	}
	return ""
}

var probe struct {
	once sync.Once
	err  error
}

// Available reports whether io_uring works in this process, by setting up
// (and closing) a tiny ring once; later calls return the cached answer,
// except that the force-fail hook is always honoured. The error wraps
// ErrUnavailable with the reason. Safe for concurrent use.
func Available() error {
	if err := forcedFailure(); err != nil {
		return err
	}
	probe.once.Do(func() {
		if d := disabledSysctl(); strings.Contains(d, "=2") {
			probe.err = fmt.Errorf("%w: %s", ErrUnavailable, d)
			return
		}
		r, err := NewRing(2)
		if err != nil {
			probe.err = err
			return
		}
		probe.err = r.Close()
	})
	return probe.err
}
