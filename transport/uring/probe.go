package uring

import (
	"sync"

	"github.com/nordisk/katbench/internal/ring"
)

// ForceFailEnv names the environment variable a command reads to make the
// io_uring transport unavailable (package transport's "uring.force-fail"
// setting), so the fallback to net/http can be tested and demonstrated on
// any machine. This package does not read it.
const ForceFailEnv = "KATBENCH_URING_FORCE_FAIL"

var probe struct {
	once sync.Once
	err  error
}

// Available reports whether the io_uring transport can work in this
// process: a ring can be set up, and the kernel supports every opcode and
// feature the transport uses (IORING_REGISTER_PROBE and the setup feature
// flags). It probes once; later calls return the cached answer. The error
// wraps ErrUnavailable with the reason. Safe for concurrent use.
func Available() error {
	probe.once.Do(func() { probe.err = ring.Probe() })
	return probe.err
}
