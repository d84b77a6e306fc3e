package output

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// FirstWrite passes the first write through and drops the rest, so a
// fallback found against every endpoint is announced once. Not safe for
// concurrent use; the benches write warnings from one goroutine.
type FirstWrite struct {
	W    io.Writer
	done bool
}

func (f *FirstWrite) Write(b []byte) (int, error) {
	if f.done {
		return len(b), nil
	}
	f.done = true
	return f.W.Write(b)
}

// StartCPUProfile is the --cpuprofile of a bench: a CPU profile to path
// until the returned stop.
func StartCPUProfile(path string) (stop func() error, err error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		return nil, errors.Join(fmt.Errorf("--cpuprofile: %w", err), pf.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return pf.Close()
	}, nil
}
