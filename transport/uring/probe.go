package uring

import (
	"fmt"
	"os"
	"sync"

	"github.com/nordisk/katbench/internal/ring"
)

// ForceFailEnv, when set to "1" in the environment, makes Available (and so
// NewTransport) fail with ErrUnavailable. It exists so the fallback to
// net/http can be tested and demonstrated on any machine.
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

var probe struct {
	once sync.Once
	err  error
}

// Available reports whether the io_uring transport can work in this
// process: a ring can be set up, and the kernel supports every opcode and
// feature the transport uses (IORING_REGISTER_PROBE and the setup feature
// flags). It probes once; later calls return the cached answer, except that
// the force-fail hook is always honoured. The error wraps ErrUnavailable with
// the reason. Safe for concurrent use.
func Available() error {
	if err := forcedFailure(); err != nil {
		return err
	}
	probe.once.Do(func() { probe.err = ring.Probe() })
	return probe.err
}
